"""The seat's Fireteam choices (``orders/fireteams.py``): which teams it may form now and
which members may lead a team's Order; and, in a team's Order, what each member may
declare (it follows the leader's movement or stays Idle)."""

from __future__ import annotations

from .. import commands as c
from ..ids import Side
from ..orders.fireteam_chart import KIND_NAMES, chart_of, chart_offer, chart_partners
from ..orders.fireteams import (
    SIZES,
    at_limit,
    decide_activate_fireteam,
    fireteam_level,
    fireteam_order,
    follower_problem,
    forming_now,
    limit_problem,
    may_join,
    member_problem,
    token_problem,
)
from ..plain import Plain
from ..state import ActiveOrder, GameState
from .accepted import accepted

CHART_APART = ("Your army's Fireteams Chart has no team of this type that this trooper and "
               "that leader may form together now.")
MEMBER_CHOICES = ("index", "coordinated", "route_skills", "allowances", "impetuous", "idle", "idle_for")
"""What a member's choices keep in a Fireteam's Order: it moves with the leader (each movement
as far as its own allowance, as the rules core judges it) or is Idle."""


def fireteam_options(state: GameState, side: Side) -> dict[str, Plain]:
    """``{"form": {kind: {"name", "sizes": [fewest, most], "leaders": {leader: [troopers that
    may join it]}, "unable": {trooper: why it may not be in such a team now}, "apart":
    {leader: {trooper: why it may not follow that leader}}}}, "unavailable": {kind: why no
    such team may be formed now}, "no_forming": why no team may be formed now (the Command
    Token) or None, "cost": "deployment" | "command_token" | None, "activate": [members that
    may declare their team's Order now], "teams": [{kind, leader, members, level}]}``.

    With the army's own Fireteams Chart, ``form[kind]`` also has ``"chart"``: the chart's
    teams of that type with the troopers that may be in each unit and as wildcards
    (``fireteam_chart.chart_offer``, which says when a set is one of them); a leader lists
    only troopers that make a team the chart allows with it, and a set of them is accepted
    when it is also one of ``chart``'s teams. Without a chart, any set of a leader's listed
    troopers of a size in ``sizes`` is accepted (each is judged alone and with the leader, as
    the rules core judges them); every reason is the sentence
    the rules core refuses that trooper or team with. Reasons are given only when the seat
    has a trooper whose profile lists a Fireteam type (a list without any needs none)."""
    cost = forming_now(state, side)
    explain = any(may_join(state, t, kind) for t in state.troopers_of(side) for kind in SIZES)
    chart = chart_of(state, side)
    no_forming = token_problem(state, side) if cost == "command_token" else None
    if no_forming is not None:
        cost = None
    form: dict[str, Plain] = {}
    unavailable: dict[str, Plain] = {}
    for kind in SIZES if cost is not None else ():
        if at_limit(state, side, kind):
            unavailable[kind] = limit_problem(state, side, kind)
            continue
        problems = {t.id: member_problem(state, kind, t) for t in state.troopers_of(side)}
        able = [t for t in state.troopers_of(side) if problems[t.id] is None]
        leaders: dict[str, Plain] = {}
        apart: dict[str, Plain] = {}
        for leader in able:
            followers = {t.id: follower_problem(leader, t) for t in able if t is not leader}
            joining = [t for t, problem in followers.items() if problem is None]
            if chart is not None:  # only those in a team the army's chart allows
                fitting = chart_partners(chart, kind, SIZES[kind], leader,
                                         [t for t in able if t.id in joining])
                followers.update({t: CHART_APART for t in joining if t not in fitting})
                joining = [t for t in joining if t in fitting]
            if len(joining) + 1 >= SIZES[kind][0]:
                leaders[leader.id] = joining
                apart[leader.id] = {t: p for t, p in followers.items() if p is not None}
        if leaders:
            form[kind] = {"name": KIND_NAMES[kind], "sizes": list(SIZES[kind]), "leaders": leaders,
                          "unable": {t: p for t, p in problems.items() if p is not None},
                          "apart": apart}
            if chart is not None:
                form[kind]["chart"] = chart_offer(chart, kind, able)
        elif chart is not None and able:
            unavailable[kind] = (f"No {KIND_NAMES[kind]} of your army's Fireteams Chart can be "
                                 f"formed from your troopers now (its units' minimums, one "
                                 f"Combat Group, Coherency).")
        else:
            unavailable[kind] = (f"Too few of your troopers may form a {KIND_NAMES[kind]} now "
                                 f"(it needs {SIZES[kind][0]} of one Combat Group in Coherency).")
    teams = [t for t in state.fireteams if t.side is side]
    return {
        "form": form,
        "unavailable": unavailable if explain else {},
        "no_forming": no_forming if explain else None,
        "cost": cost if form else None,
        "activate": [m for t in teams for m in t.members if state.order is None and accepted(
            decide_activate_fireteam, state, side, c.ActivateFireteam(m))],
        "teams": [{"kind": t.kind, "leader": t.leader, "members": list(t.members),
                   "level": fireteam_level(state, t.members)} for t in teams],
    }


def _nothing(value: Plain) -> Plain:
    """An offer of nothing, of the same shape (the client reads every key)."""
    if isinstance(value, dict):
        return {}
    if isinstance(value, list):
        return []
    return False if isinstance(value, bool) else None


def restrict_members(state: GameState, order: ActiveOrder, result: dict[str, Plain]) -> None:
    """In a Fireteam's Order each member's choices keep only following the leader's
    movement and Idle (what ``check_member_skills`` accepts)."""
    if fireteam_order(state, order) is None or not isinstance(result.get("peripherals"), dict):
        return
    members = result["peripherals"]
    assert isinstance(members, dict)
    for member, offered in members.items():
        if isinstance(offered, dict):
            members[member] = {k: v if k in MEMBER_CHOICES else _nothing(v)
                               for k, v in offered.items()}
    result["fireteam"] = True
