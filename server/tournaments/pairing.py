"""Swiss pairing: pure functions over player ids in ranking order (docs/tournaments.md,
"Swiss pairing").

The rules, in order of precedence: a bye (odd count) to the lowest-ranked player without
one; no pairing of two players who have met while a pairing of everyone without a repeat
exists (found by a depth-first search over the ranking order, not a greedy pass); among
the pairings allowed, the first in ranking order: the highest-ranked unpaired player meets
the highest-ranked one it may meet. Only when no repeat-free pairing exists does the search
allow one repeat, then two, and so on.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence, Set
from dataclasses import dataclass

SEARCH_STEPS = 200_000
"""Steps the search may take for one number of repeats allowed before it allows one more.
Only a tournament with nearly as many rounds as players can come near it (the search
remembers every set of players it found unpairable); then one more repeat is accepted rather
than the organizer kept waiting."""


@dataclass(frozen=True, slots=True)
class Pairing:
    tables: tuple[tuple[str, str], ...]
    """(seat A, seat B) per table, in table order; A is the higher-ranked."""
    bye: str | None
    repeats: int


def choose_bye(ranked: Sequence[str], had_bye: Set[str]) -> str | None:
    """The lowest-ranked player without a bye (everyone had one: the lowest); None when the
    count is even."""
    if len(ranked) % 2 == 0:
        return None
    for player in reversed(ranked):
        if player not in had_bye:
            return player
    return ranked[-1]


def first_round_order(players: Sequence[tuple[str, int | None]], shuffle_key: str) -> list[str]:
    """Round 1's order: seeded players by seed (then by their order given), then the
    unseeded shuffled by a generator seeded with ``shuffle_key`` (the same on every node)."""
    seeded = sorted((p for p in players if p[1] is not None), key=lambda p: p[1] or 0)
    unseeded = [p[0] for p in players if p[1] is None]
    random.Random(shuffle_key).shuffle(unseeded)
    return [p[0] for p in seeded] + unseeded


def pair_first_round(ranked: Sequence[str], had_bye: Set[str] = frozenset()) -> Pairing:
    """The top half meets the bottom half (1st v n/2+1-th, ...): seeds meet late."""
    bye = choose_bye(ranked, had_bye)
    players = [p for p in ranked if p != bye]
    half = len(players) // 2
    return Pairing(tuple(zip(players[:half], players[half:], strict=True)), bye, 0)


def pair_round(ranked: Sequence[str], played: Collection[frozenset[str]],
               had_bye: Set[str]) -> Pairing:
    """A later round: the bye, then the first pairing in ranking order with the fewest
    repeats (0 whenever one exists)."""
    bye = choose_bye(ranked, had_bye)
    players = tuple(p for p in ranked if p != bye)
    played_set = frozenset(played)
    for allowed in range(len(players) // 2 + 1):
        found = _Search(played_set, allowed).run(players)
        if found is not None:
            repeats = sum(frozenset(pair) in played_set for pair in found)
            return Pairing(tuple(found), bye, repeats)
    raise AssertionError("every pairing allows len/2 repeats")  # pragma: no cover


class _Search:
    def __init__(self, played: frozenset[frozenset[str]], allowed: int) -> None:
        self._played = played
        self._allowed = allowed
        self._steps = 0
        self._dead: set[tuple[tuple[str, ...], int]] = set()
        """(players left, repeats left) found unpairable: never searched twice."""
        met: dict[str, int] = {}
        for pair in played:
            for player in pair:
                met[player] = met.get(player, 0) + 1
        self._most_met = max(met.values(), default=0)

    def run(self, players: tuple[str, ...]) -> list[tuple[str, str]] | None:
        try:
            return self._pair(players, self._allowed)
        except _OutOfSteps:
            return None

    def _pair(self, players: tuple[str, ...], allowed: int) -> list[tuple[str, str]] | None:
        if not players:
            return []
        if (players, allowed) in self._dead:
            return None
        self._steps += 1
        if self._steps > SEARCH_STEPS:
            raise _OutOfSteps
        if allowed == 0 and not self._everyone_has_a_partner(players):
            self._dead.add((players, allowed))
            return None
        top, rest = players[0], players[1:]
        for index, other in enumerate(rest):
            repeat = frozenset((top, other)) in self._played
            if repeat and allowed == 0:
                continue
            below = self._pair(rest[:index] + rest[index + 1:], allowed - repeat)
            if below is not None:
                return [(top, other), *below]
        self._dead.add((players, allowed))
        return None

    def _everyone_has_a_partner(self, players: tuple[str, ...]) -> bool:
        """A cheap cut: a player who has met everyone left cannot be paired without a
        repeat. Skipped while more are left than anyone has met."""
        if len(players) - 1 > self._most_met:
            return True
        return all(any(other != player and frozenset((player, other)) not in self._played
                       for other in players) for player in players)


class _OutOfSteps(Exception):
    pass
