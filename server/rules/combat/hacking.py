"""Hacking, the smallest slice: Hackers, Repeaters, Hacking Areas and one Comms Attack
program (DIGEST 6.1, 10.3, 13; the wiki's Quantronic Combat pages quoted as S35).

* A **Hacker** (``UnitProfile.hacker``) may run every program of ``PROGRAMS`` (this slice
  has no Hacking Devices: the catalogue is what every Hacker carries).
* Its **Hacking Area** is its own Zone of Control plus the ZoC of every Repeater of its
  army on the table and not Null (``UnitProfile.repeater``; DIGEST 10.3, S35 "Hacking Area").
* A **Comms Attack** (skill ``comms_attack``) runs a program against one enemy trooper in
  Model form inside the Hacking Area, without Line of Fire: a WIP roll with the program's
  Attack MOD (+3 against a Targeted trooper), its Burst in the Active Turn, 1 in ARO. Each
  success forces Saving Rolls on BTS against the program's PS (per its ammunition, each
  Critical one more); a failed save puts the trooper in the program's State.
* Its **target may react** even outside LoF and ZoC (seed 000 ARO, DIGEST 6.1 (4)); a
  reactive Hacker may react with a program to an enemy acting inside its Hacking Area even
  outside its LoF (DIGEST 13, S35 "Hacking Area in ARO").

Not built (docs/rules-decisions/resolution.md "Hacking"): Hacking Devices and the other
programs, Firewall, ECM (Guided), Non-Hackable, enemy Repeaters, Deployable Repeaters, Supportware,
splitting a program's Burst, the Immobilized-B State. An Isolated trooper (``isolated.py``)
has no Comms: no Comms Attack, no Hacking Area.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..armies.skills import CommsAttack
from ..decision import require
from ..ids import TrooperId, WeaponId
from ..reasons import Reason
from ..ruleset import options
from ..state import GameState, TrooperState
from ..table.geometry import Body, Point
from ..table.zone_of_control import RouteInZones, in_zone_of_control
from .ammunition import Ammunition
from .dice import Dice, roll_d20
from .ecm import ecm_mods
from .isolated import check_not_isolated_for_comms
from .outcome import Effect, SaveRecord, TargetedSet
from .rolls import Mod
from .saves import judge_save, save_target, saves_required

TARGETED_COMMS_MOD = 3
"""Targeted: +3 to Comms Attacks against the trooper (DIGEST 8, 10.6)."""


@dataclass(frozen=True, slots=True)
class HackingProgram:
    """A program as its chart line: ``attack_mod`` to the Hacker's WIP, Burst, PS and
    ammunition of the BTS Saving Rolls, and the State a failed save causes."""

    id: str
    name: str
    attack_mod: int
    burst: int
    ps: int
    ammo: Ammunition
    state: str


PROGRAMS: Mapping[str, HackingProgram] = {
    program.id: program
    for program in (
        # Our own invented program (not copied from any army book): it paints the target
        # for the rest of the army through the Targeted State the engine already has.
        HackingProgram("tracer_ping", "Tracer Ping", attack_mod=0, burst=2, ps=5,
                       ammo=Ammunition.N, state="targeted"),
    )
}


def program_named(program_id: str) -> HackingProgram | None:
    return PROGRAMS.get(program_id)


def check_hacker_and_program(trooper: TrooperState, skill: CommsAttack) -> None:
    """Only a Hacker declares a Comms Attack, with a program it has (hacking.PROGRAMS),
    and not while Isolated (no Comms, DIGEST 8)."""
    require(
        trooper.profile.hacker,
        Reason.SKILL_NOT_ALLOWED,
        f"{trooper.profile.name} is not a Hacker: only Hackers declare Comms Attacks.",
    )
    check_not_isolated_for_comms(trooper)
    require(
        program_named(skill.program) is not None,
        Reason.UNKNOWN_WEAPON,
        f"There is no Hacking Program {skill.program!r}.",
    )


def area_owners(state: GameState, hacker: TrooperState) -> tuple[Body, ...]:
    """The bodies whose Zone of Control makes up ``hacker``'s Hacking Area: the hacker
    (where it stands) and every friendly Repeater on the table that is not Null. An Isolated
    Hacker has none, and an Isolated Repeater extends none (no Comms, ``isolated.py``)."""
    if hacker.isolated:
        return ()
    repeaters = tuple(
        t.body() for t in state.troopers_of(hacker.side)
        if t.profile.repeater and t.id != hacker.id and t.on_table and not t.is_null
        and not t.isolated
    )
    return (hacker.body(), *repeaters) if hacker.position is not None else repeaters


def in_hacking_area(state: GameState, hacker: TrooperState, other: Body) -> bool:
    """``other`` (a base where it stands) is inside ``hacker``'s Hacking Area."""
    return any(in_zone_of_control(owner, other) for owner in area_owners(state, hacker))


def path_in_hacking_area(state: GameState, hacker: TrooperState, mover: Body,
                         path: Sequence[Point]) -> bool:
    """At some point of ``path`` the mover is inside ``hacker``'s Hacking Area (S35:
    measured from any point of the active trooper's path)."""
    zones = RouteInZones(mover, path)
    return any(zones.entered_by(owner) for owner in area_owners(state, hacker))


def comms_mods(program: HackingProgram, target: TrooperState) -> tuple[Mod, ...]:
    """The program's Attack MOD, the target's Targeted +3 and its ECM (``ecm.py``) (no range,
    cover or Mimetism: programs need no LoF)."""
    mods: list[Mod] = []
    if program.attack_mod:
        mods.append(Mod("program", program.attack_mod))
    if target.targeted:
        mods.append(Mod("targeted", TARGETED_COMMS_MOD))
    return (*mods, *ecm_mods(target))


@dataclass(frozen=True, slots=True)
class CommsHit:
    """Surviving successes of one Comms Attack against one trooper."""

    attacker: TrooperId
    target: TrooperId
    program: str
    hits: int
    criticals: int


@dataclass(frozen=True, slots=True)
class CommsDamage:
    saves: tuple[SaveRecord, ...]
    effects: tuple[Effect, ...]
    dice: Dice


def resolve_comms_hits(state: GameState, hits: Sequence[CommsHit], dice: Dice) -> CommsDamage:
    """Roll the BTS saves of every hit in order (``SaveRecord.weapon`` names the program);
    a trooper that fails one and is neither Null nor already in the State enters it."""
    convention = options(state.ruleset).save_convention
    records: list[SaveRecord] = []
    effects: list[Effect] = []
    targeted = {t.id for t in state.troopers.values() if t.targeted}
    for hit in hits:
        program = PROGRAMS[hit.program]
        target = state.trooper(hit.target)
        number = save_target(target.profile.bts, program.ps, program.ammo, False, convention)
        faces, dice = roll_d20(dice, saves_required(program.ammo, hit.hits, hit.criticals))
        rolls = tuple(judge_save(face, number, convention) for face in faces)
        failed = sum(1 for roll in rolls if roll.failed)
        records.append(SaveRecord(
            trooper=target.id, attacker=hit.attacker, weapon=WeaponId(program.id),
            ammo=program.ammo.value, hits=hit.hits, criticals=hit.criticals,
            partial_cover=False, target=number, rolls=rolls, failed=failed,
        ))
        if failed and not target.is_null and target.id not in targeted:
            targeted.add(target.id)
            effects.append(TargetedSet(target.id, program.id))
    return CommsDamage(saves=tuple(records), effects=tuple(effects), dice=dice)
