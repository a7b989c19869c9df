"""Swiss pairing properties (docs/tournaments.md, "Swiss pairing"), checked over generated
rankings and histories against a brute-force enumeration of every pairing."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from server.tournaments.pairing import (
    choose_bye,
    first_round_order,
    pair_first_round,
    pair_round,
)


def every_pairing(players: tuple[str, ...]) -> Iterator[list[tuple[str, str]]]:
    """Every perfect matching, the top player's partner taken in ranking order first."""
    if not players:
        yield []
        return
    top, rest = players[0], players[1:]
    for index, other in enumerate(rest):
        for below in every_pairing(rest[:index] + rest[index + 1:]):
            yield [(top, other), *below]


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[str], set[frozenset[str]], set[str]]:
    count = draw(st.integers(min_value=2, max_value=10))
    ranked = [f"p{n}" for n in draw(st.permutations(range(1, count + 1)))]
    pairs = [frozenset((a, b)) for i, a in enumerate(ranked) for b in ranked[i + 1:]]
    played = set(draw(st.lists(st.sampled_from(pairs), max_size=len(pairs)))) if pairs else set()
    had_bye = set(draw(st.lists(st.sampled_from(ranked), max_size=count)))
    return ranked, played, had_bye


@settings(max_examples=400, deadline=None)
@given(histories())
def test_a_round_pairs_everyone_once_with_the_fewest_repeats_first_in_ranking_order(
        history: tuple[list[str], set[frozenset[str]], set[str]]) -> None:
    ranked, played, had_bye = history
    pairing = pair_round(ranked, played, had_bye)
    seated = [p for table in pairing.tables for p in table]
    assert sorted(seated + ([pairing.bye] if pairing.bye else [])) == sorted(ranked)
    # The bye: the lowest-ranked player who has not had one (all had one: the lowest).
    if len(ranked) % 2:
        without = [p for p in ranked if p not in had_bye]
        assert pairing.bye == (without[-1] if without else ranked[-1])
    else:
        assert pairing.bye is None
    rest = tuple(p for p in ranked if p != pairing.bye)
    candidates = list(every_pairing(rest))
    fewest = min(sum(frozenset(t) in played for t in c) for c in candidates)
    repeats = sum(frozenset(t) in played for t in pairing.tables)
    assert repeats == pairing.repeats == fewest, "never a repeat while a pairing without exists"
    first = next(c for c in candidates if sum(frozenset(t) in played for t in c) == fewest)
    assert list(pairing.tables) == first
    for a, b in pairing.tables:  # seat A is the higher-ranked
        assert ranked.index(a) < ranked.index(b)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=2, max_value=30), st.data())
def test_the_first_round_meets_the_top_half_against_the_bottom_half(
        count: int, data: st.DataObject) -> None:
    seeds = data.draw(st.lists(st.one_of(st.none(), st.integers(1, 99)), min_size=count,
                               max_size=count))
    players = [(f"p{n}", seed) for n, seed in enumerate(seeds, 1)]
    order = first_round_order(players, "t-1")
    assert order == first_round_order(players, "t-1"), "the same on every node"
    seeded = [pid for pid, seed in sorted((p for p in players if p[1] is not None),
                                          key=lambda p: p[1] or 0)]
    assert order[:len(seeded)] == seeded and sorted(order) == sorted(p[0] for p in players)
    pairing = pair_first_round(order)
    rest = [p for p in order if p != pairing.bye]
    half = len(rest) // 2
    assert pairing.bye == (order[-1] if count % 2 else None)
    assert list(pairing.tables) == list(zip(rest[:half], rest[half:], strict=True))


def test_choose_bye_skips_players_who_had_one() -> None:
    assert choose_bye(["a", "b", "c"], {"c"}) == "b"
    assert choose_bye(["a", "b", "c"], {"a", "b", "c"}) == "c"
    assert choose_bye(["a", "b"], set()) is None


def test_backtracking_finds_the_pairing_a_greedy_pass_misses() -> None:
    # Greedy: a-b, then c-d have met: a repeat. Backtracking: a-c, b-d.
    pairing = pair_round(["a", "b", "c", "d"], {frozenset(("c", "d"))}, set())
    assert pairing.tables == (("a", "c"), ("b", "d")) and pairing.repeats == 0


def test_a_large_field_pairs_without_repeats() -> None:
    ranked = [f"p{n}" for n in range(1, 257)]
    played: set[frozenset[str]] = set()
    for round_number in range(10):  # ten rounds of 256 players, reshuffled rankings
        order = ranked[round_number:] + ranked[:round_number]
        pairing = pair_round(order, played, set())
        assert pairing.repeats == 0
        played |= {frozenset(t) for t in pairing.tables}
