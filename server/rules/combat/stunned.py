"""The Stunned state (DIGEST 7.6, 8; official N5 Stunned State and Stun Ammunition).

* **Caused by** a failed Saving Roll against Stun ammunition (``damage.resolve_hits``: a
  ``StunnedSet`` effect). Stun is Non-Lethal: its failed saves deal no wounds. The trooper
  records the Player Turn it was Stunned in (``TrooperState.stunned_in``).
* **Declarations**: no Attacks (BS, CC or Comms Attack, Forward Observer, Berserk, Place
  Deployable), in its turn or in ARO
  (``check_stunned_may_declare``, reason ``stunned``); everything else is allowed.
* **Rolls**: -3 to every roll it makes except Saving Rolls (``stunned_mods``: its Dodge,
  Reset, Discover and Guts Rolls, listed among each roll's MODs).
* **Guts**: failing a save against Stun makes the trooper fail the Guts Roll that follows
  without a die (``fails_guts_by_stun``), unless it has Courage (``combat/courage.py``).
* It is not Null: it still brings its Order at the Order Count, and may be the Lieutenant.
* **Cancelled** automatically at the start of the States Phase of the Player Turn in which it
  was caused (``states_phase_checks``: a ``StatesPhaseChecked`` event, no roll, no ARO;
  seed 002 States Phase). Not built: a Doctor cancelling it (DIGEST 8's State table
  names one, the wiki's "Doctor" page does not: docs/rules-decisions/specialists.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..armies.skills import BsAttack, CcAttack, CommsAttack, ForwardObserver, PlaceDeployable, Skill
from ..decision import require
from ..ids import TrooperId
from ..reasons import Reason
from ..state import GameState, TrooperState
from .ammunition import Ammunition
from .outcome import SaveRecord
from .rolls import Mod

STUNNED_MOD = -3
"""To every roll of a Stunned trooper except its Saving Rolls (DIGEST 8)."""
ATTACKS = (BsAttack, CcAttack, CommsAttack, ForwardObserver, PlaceDeployable)
"""The Attacks a Stunned trooper may not declare (Place Deployable carries the Attack label:
infinitythewiki "Place Deployable", N5). Berserk is a ``CcAttack``."""


def stuns(ammo: Ammunition) -> bool:
    """Whether a failed save against ``ammo`` makes the trooper Stunned (DIGEST 7.6)."""
    return ammo is Ammunition.STUN


def may_declare(trooper: TrooperState, skill: type[Skill]) -> bool:
    """Whether the Stunned State lets ``trooper`` declare a skill of type ``skill`` (what
    ``options`` asks where it offers a skill without a declaration to try, e.g. the Mines
    ``combat/mines.placement_offer`` offers)."""
    return not (trooper.stunned and issubclass(skill, ATTACKS))


def check_stunned_may_declare(trooper: TrooperState, skill: Skill) -> None:
    """Refuse (``stunned``) an Attack declared by a Stunned trooper, Active or in ARO."""
    require(
        may_declare(trooper, type(skill)),
        Reason.STUNNED,
        f"{trooper.id} is Stunned: it cannot declare Attacks until the States Phase of this "
        "Player Turn cancels the state.",
    )


def stunned_mods(trooper: TrooperState) -> tuple[Mod, ...]:
    """The MOD a Stunned trooper adds to any roll that is not a Saving Roll."""
    return (Mod("stunned", STUNNED_MOD),) if trooper.stunned else ()


def fails_guts_by_stun(trooper: TrooperId, saves: Sequence[SaveRecord]) -> bool:
    """``trooper`` failed a save against Stun in this Order: its Guts Roll fails, no die."""
    return any(s.trooper == trooper and s.failed and stuns(Ammunition(s.ammo)) for s in saves)


def stunned_to_cancel(state: GameState) -> tuple[TrooperId, ...]:
    """Every trooper, of either side, Stunned in the Player Turn now ending: its Stunned is
    cancelled at the start of this turn's States Phase."""
    now = (state.round, state.turn)
    return tuple(sorted(t.id for t in state.troopers.values() if t.stunned_in == now))
