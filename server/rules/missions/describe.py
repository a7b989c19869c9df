"""Each objective in words, as players read it in the lobby and in the game's state: made from
the objective's own fields, so the words never disagree with what is scored."""

from __future__ import annotations

from .mission import (
    GAME_END,
    ActivateMarker,
    DominateZone,
    KillLieutenant,
    KillThresholds,
    Mission,
    MorePointsKilled,
    Objective,
)


def objective_text(mission: Mission, objective: Objective) -> str:
    if isinstance(objective, DominateZone):
        zones = _listed([mission.zone(z).name for z in objective.zones])
        when = " and ".join({"round_end": "at the end of each Game Round",
                             "game_end": "at the end of the game"}[w] for w in objective.when)
        measure = ("army points" if objective.by == "points" else "troopers")
        each = " each" if len(objective.zones) > 1 else ""
        return (f"{_op(objective.op)} for dominating {zones}{each} {when}: more {measure} "
                "of your own inside than the enemy has (troopers on the table as models, not "
                "in a Null state, the centre of the base inside).")
    if isinstance(objective, ActivateMarker):
        names = _listed([_marker_name(mission, m) for m in objective.markers])
        who = "a Specialist trooper" if objective.specialists_only else "a trooper"
        often = "once per Game Round" if objective.per_round else "once in the game"
        when = ("at the end of the game" if objective.when == GAME_END
                else "at the end of the Game Round it was activated in")
        which = (f"for activating {names}" if len(objective.markers) == 1
                 else f"per marker your side activated among {names}")
        return (f"{_op(objective.op)} {which}, scored "
                f"{when}: {who} in base contact declares the Short Skill Activate and passes "
                f"a Normal WIP Roll; each side activates each marker {often}, and a "
                "failure may be tried again.")
    if isinstance(objective, KillLieutenant):
        return (f"{_op(objective.op)} if at the end of the game the enemy's Lieutenant (the "
                "one its list named) is in a Null state or never reached the table.")
    if isinstance(objective, MorePointsKilled):
        return (f"{_op(objective.op)} at the end of the game for having killed more enemy "
                "army points than the enemy killed of yours.")
    if isinstance(objective, KillThresholds):
        bands = "; ".join(f"{round(b.share * 100)}% or more: {_op(b.op)}" for b in objective.bands)
        return ("At the end of the game, by the share of the enemy's army points killed "
                f"(in a Null state or never on the table): {bands}.")
    raise ValueError(f"unknown objective kind {objective.TYPE}")


def _marker_name(mission: Mission, marker_id: str) -> str:
    marker = mission.marker(marker_id)
    return marker.name if marker is not None else marker_id


def _op(op: int) -> str:
    return f"{op} OP"


def _listed(names: list[str]) -> str:
    if len(names) == 1:
        return f"the {names[0]}"
    return "the " + ", the ".join(names[:-1]) + f" and the {names[-1]}"
