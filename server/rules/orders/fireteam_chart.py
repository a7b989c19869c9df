"""Judging a Fireteam against its army's own Fireteams Chart (N5), when the list has one
(``ArmyList.fireteam_chart``; without one the default applies: ``orders/fireteams.py``).

Rules read from the Infinity wiki's N5 page "Fireteams Chart": the maximum number of teams of
each type on the table, checked whenever a team is formed; a team is formed as one of the
chart's teams for that type, observing the Min and Max of each of its units; when some units
are marked (the asterisk), the team needs a member of one of them. Wildcards (the army's
chart names them) may be part of any of its teams: they fill places but count for no unit's
Min or Max, and the team still needs a member of its own units (docs/rules-decisions/
fireteams.md, "Wildcards": the wiki pages read do not rule on them; UNCERTAIN). The Level is
as for any team (``fireteams.fireteam_level``): a wildcard counts with the members that share
its unit name or bracketed term.

Every refusal is a sentence that names the chart's rule.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..armies.fireteam_chart import ChartTeam, FireteamChart
from ..armies.profiles import UnitProfile
from ..ids import Side
from ..state import GameState, TrooperState

KIND_NAMES = {"core": "Fireteam: Core", "haris": "Fireteam: Haris", "duo": "Fireteam: Duo"}
WILDCARD = -1
"""The class of a member that fills a place as a wildcard (not one of the team's units)."""


def chart_of(state: GameState, side: Side) -> FireteamChart | None:
    army = state.armies.get(side)
    return army.fireteam_chart if army is not None else None


def _name(trooper: TrooperState) -> str:
    return f"{trooper.profile.name} ({trooper.id})"


def _class(chart: FireteamChart, team: ChartTeam, profile: UnitProfile) -> int | None:
    """Which of ``team``'s units the profile counts as (its index), WILDCARD, or None."""
    for index, unit in enumerate(team.units):
        if unit.fits(profile):
            return index
    return WILDCARD if chart.wildcard(profile) is not None else None


def chart_member_problem(chart: FireteamChart, kind: str, trooper: TrooperState) -> str | None:
    """Why the chart lets the trooper be in no team of ``kind``, or None."""
    teams = chart.teams_of(kind)
    if not teams:
        return f"Your army's Fireteams Chart has no {KIND_NAMES[kind]}."
    if any(_class(chart, team, trooper.profile) is not None for team in teams):
        return None
    return f"{_name(trooper)} is in no {KIND_NAMES[kind]} of your army's Fireteams Chart."


def chart_limit(chart: FireteamChart, kind: str) -> int | None:
    """How many teams of ``kind`` the chart allows on the table at once (None: no limit); 0
    when it has no team of that type."""
    return chart.limit(kind) if chart.teams_of(kind) else 0


def limit_sentence(chart: FireteamChart, kind: str) -> str:
    limit = chart.limit(kind)
    if limit == 0 or not chart.teams_of(kind):
        return f"Your army's Fireteams Chart has no {KIND_NAMES[kind]}."
    return (f"Your army's Fireteams Chart allows {limit} {KIND_NAMES[kind]} on the table at "
            f"a time.")


def _counts_problem(chart: FireteamChart, kind: str, team: ChartTeam,
                    counts: Sequence[int]) -> str | None:
    """Why members counted per unit of ``team`` (``counts[i]`` for unit i) break its Min,
    Max or marked units, or None."""
    what = f"a {KIND_NAMES[kind]} of {team.name}"
    for unit, count in zip(team.units, counts, strict=True):
        if count > unit.max:
            return (f"Your army's Fireteams Chart allows at most {unit.max} {unit.name} in "
                    f"{what}.")
    for unit, count in zip(team.units, counts, strict=True):
        if count < unit.min:
            return (f"Your army's Fireteams Chart: {what} needs at least {unit.min} "
                    f"{unit.name}.")
    marked = [i for i, unit in enumerate(team.units) if unit.required]
    if marked and not any(counts[i] for i in marked):
        names = " or ".join(team.units[i].name for i in marked)
        return f"Your army's Fireteams Chart: {what} needs a {names}."
    if not any(counts):
        names = ", ".join(unit.name for unit in team.units)
        return (f"Your army's Fireteams Chart: {what} needs a member of its own units "
                f"({names}), not only wildcards.")
    return None


def _fit(chart: FireteamChart, kind: str, team: ChartTeam,
         troopers: Sequence[TrooperState]) -> tuple[str | None, bool]:
    """Why the troopers are not a team of ``team`` (or None), and whether each of them at
    least belongs to it (a unit of it or a wildcard)."""
    counts = [0] * len(team.units)
    for trooper in troopers:
        found = _class(chart, team, trooper.profile)
        if found is None:
            return (f"{_name(trooper)} is not one of the units of {team.name} in your army's "
                    f"Fireteams Chart."), False
        if found != WILDCARD:
            counts[found] += 1
    return _counts_problem(chart, kind, team, counts), True


def chart_team_problem(chart: FireteamChart, kind: str,
                       troopers: Sequence[TrooperState]) -> str | None:
    """Why these troopers match none of the chart's teams of ``kind``, or None."""
    teams = chart.teams_of(kind)
    if not teams:
        return f"Your army's Fireteams Chart has no {KIND_NAMES[kind]}."
    fits = [_fit(chart, kind, team, troopers) for team in teams]
    if any(problem is None for problem, _ in fits):
        return None
    belonging = [problem for problem, belongs in fits if belongs]
    if belonging:
        return belonging[0]
    if len(fits) == 1:
        return fits[0][0]
    names = ", ".join(team.name for team in teams)
    return (f"None of the {KIND_NAMES[kind]} teams of your army's Fireteams Chart ({names}) "
            f"takes all of these troopers.")


def _vectors(caps: Sequence[int], low: int, high: int) -> Iterator[tuple[int, ...]]:
    """Every count per class within ``caps`` whose total is from ``low`` to ``high``."""
    def extend(prefix: tuple[int, ...], total: int) -> Iterator[tuple[int, ...]]:
        if len(prefix) == len(caps):
            if low <= total:
                yield prefix
            return
        for count in range(min(caps[len(prefix)], high - total) + 1):
            yield from extend((*prefix, count), total + count)
    return extend((), 0)


def chart_partners(chart: FireteamChart, kind: str, sizes: tuple[int, int],
                   leader: TrooperState, candidates: Sequence[TrooperState]) -> set[str]:
    """The candidates (by id) that are in at least one team of ``kind`` with ``leader`` that
    the chart allows, of a size within ``sizes`` (leader included). Troopers counting as the
    same unit of a chart team are interchangeable, so the counts per unit are enumerated,
    not the sets of troopers."""
    partners: set[str] = set()
    for team in chart.teams_of(kind):
        head = _class(chart, team, leader.profile)
        if head is None:
            continue
        classes = [*range(len(team.units)), WILDCARD]
        members = {c: [t for t in candidates if _class(chart, team, t.profile) == c]
                   for c in classes}
        caps = [len(members[c]) + (c == head) for c in classes]
        for vector in _vectors(caps, *sizes):
            if vector[classes.index(head)] < 1:
                continue
            if _counts_problem(chart, kind, team, vector[:-1]) is not None:
                continue
            for c, count in zip(classes, vector, strict=True):
                if count - (c == head) >= 1:
                    partners.update(t.id for t in members[c])
    return partners


def chart_offer(chart: FireteamChart, kind: str,
                troopers: Sequence[TrooperState]) -> list[dict[str, object]]:
    """The chart's teams of ``kind`` with the given troopers sorted into them, as
    ``options`` shows them: ``[{"name", "units": [{"name", "min", "max", "required",
    "troopers": [ids]}], "wildcards": [ids]}]``. A set of troopers (leader included) is a
    team of one of them when each is among its units' ``troopers`` or its ``wildcards``,
    each unit's count is within its ``min`` and ``max``, one of its ``required`` units (if
    any) has a member, and not all are wildcards: what ``chart_team_problem`` checks."""
    offered: list[dict[str, object]] = []
    for team in chart.teams_of(kind):
        classes = {t.id: _class(chart, team, t.profile) for t in troopers}
        offered.append({
            "name": team.name,
            "units": [{"name": unit.name, "min": unit.min, "max": unit.max,
                       "required": unit.required,
                       "troopers": [t for t, c in classes.items() if c == index]}
                      for index, unit in enumerate(team.units)],
            "wildcards": [t for t, c in classes.items() if c == WILDCARD]})
    return offered
