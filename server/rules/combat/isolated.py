"""The Isolated state (DIGEST 7.6, 8, 11.3): a trooper cut off from its army's Comms.

* **Caused by** a failed BTS Saving Roll against E/M ammunition (``damage.resolve_hits``:
  an ``IsolatedSet`` effect; the E/M saves deal no wounds).
* **Orders**: it acts on its own Irregular Order. At the Order Count it brings an Irregular
  Order instead of a Regular one to its group's pool (``order_pool.count_orders``), and it
  may not be activated with a Regular Order from the pool (``order_not_for_trooper``).
* **Lieutenant**: an Isolated Lieutenant puts its army in Loss of Lieutenant at the
  Tactical Phase (``game_sequence.tactical_phase``), and an Isolated trooper is not
  appointed the new Lieutenant (``lieutenant.may_be_lieutenant``).
* **No Comms**: it may not declare a Comms Attack, in its turn or in ARO
  (``hacking.check_hacker_and_program``, ``skill_not_allowed``); an Isolated Hacker has no
  Hacking Area, and an Isolated Repeater extends none (``hacking.area_owners``).
* **Reset** at WIP -9 (``mods.reset_mods``); a successful Reset cancels it
  (``resolution._resets``: ``IsolatedCleared``).

E/M also makes a HI, TAG or REM trooper Immobilized-B (``immobilized.py``). Not built
(docs/rules-coverage.md, Issue 19): Engineer cancelling it; Fireteams and Coordinated Orders
(neither exists here); what becomes of an Isolated Controller's Peripherals.
"""

from __future__ import annotations

from ..decision import require
from ..reasons import Reason
from ..state import TrooperState
from .ammunition import Ammunition

ISOLATED_RESET_MOD = -9
"""To an Isolated trooper's own Reset (DIGEST 8, Isolated row)."""


def isolates(ammo: Ammunition) -> bool:
    """Whether a failed save against ``ammo`` makes the trooper Isolated (E/M, DIGEST 7.6)."""
    return ammo is Ammunition.EM


def check_not_isolated_for_comms(trooper: TrooperState) -> None:
    """An Isolated trooper has no Comms: no Comms Attack (``skill_not_allowed``)."""
    require(
        not trooper.isolated,
        Reason.SKILL_NOT_ALLOWED,
        f"{trooper.id} is Isolated: cut off from Comms, it cannot declare a Comms Attack "
        "until a successful Reset cancels the state.",
    )
