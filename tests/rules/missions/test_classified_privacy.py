"""Classified Objectives are Private Information (DIGEST 11.2; docs/fair-play.md): two games
that differ only in which cards side B drew send side A and the spectators the very same
bytes — every event as they see it, their snapshots, A's options — until a card is
achieved or the game ends; B and the casters read B's cards from the draw on.

The games are the same room (seed, entropy, commands); only the faces the draw reads for
B differ (injected). The draw takes a fixed number of dice, so every later roll (the
Initiative Roll's) reads the same faces in both."""

from __future__ import annotations

import json
from functools import cache

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted
from server.rules.events import ClassifiedDrawn
from server.rules.ids import CASTER, SPECTATOR, Side, Viewer
from server.rules.missions.classified import DICE_PER_PICK
from server.rules.options import seat_options
from server.rules.orders.deployment import deployer, placed, reserves_of
from server.rules.plain import Plain
from server.rules.state import GameState, Phase
from server.rules.views import view_event, view_state
from tests.rules.missions.classified_support import classified_mission
from tests.support.games import ARMIES, TEST_ENTROPY, deployment_spots

A, B = Side.A, Side.B
DRAW = 2
A_FACES = [5] * (DRAW * DICE_PER_PICK)
B_FACES = {"first": (1,) * (DRAW * DICE_PER_PICK), "second": (20,) * (DRAW * DICE_PER_PICK)}
AFTER_DRAW = [15, 4]  # the Initiative Roll: A fails... B passes, the same in both games


def _bytes(value: Plain) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


@cache
def _game(b_faces: tuple[int, ...]) -> tuple[dict[str, list[bytes]], GameState]:
    """Play the same opening: armies, the draw, Initiative, deployment, both first turns
    ended. Returns what each viewer received (as bytes) and the final state."""
    state = engine.new_game(engine.GameSetup(
        ruleset="n5", seed=11, injected_dice=(*A_FACES, *b_faces, *AFTER_DRAW),
        mission=classified_mission("n5", DRAW)))
    streams: dict[str, list[bytes]] = {"A": [], "B": [], "spectator": [], "caster": []}
    viewers: dict[str, Viewer] = {"A": A, "B": B, "spectator": SPECTATOR, "caster": CASTER}

    def send(side: Side, command: c.Command) -> None:
        nonlocal state
        decision = engine.decide(state, side, command)
        assert isinstance(decision, Accepted), decision
        # The decided state is the events folded: a replay gives the same game.
        assert engine.apply_all(state, decision.events) == decision.state
        state = decision.state
        for name, viewer in viewers.items():
            for event in decision.events:
                seen = view_event(event, viewer, state)
                if seen is not None:
                    streams[name].append(_bytes(seen))
            streams[name].append(_bytes(view_state(state, viewer)))
        streams["A"].append(_bytes(seat_options(state, A)))

    for side in (A, B):
        send(side, c.ChooseArmy(ARMIES["n5"][side], TEST_ENTROPY))
    winner = state.initiative.winner
    assert winner is not None
    send(winner, c.parse_command({"type": "choose_initiative", "keep": "initiative", "first": True}))
    send(winner.other, c.parse_command({"type": "choose_remaining", "first": True, "zone": "north"}))
    while state.phase is Phase.DEPLOYMENT:
        side = deployer(state)
        assert side is not None
        reserve = reserves_of(state, side)
        held = {t.entry.id for t in reserve}
        waiting = [t for t in state.troopers_of(side) if not placed(t) and t not in reserve
                   and t.entry.controller not in held]
        if waiting:
            facing = 90.0 if state.initiative.zones[side] == "south" else 270.0
            taken = {t.position for t in state.troopers.values() if t.position is not None}
            spot = next(p for p in deployment_spots(state, side) if p not in taken)
            send(side, c.Deploy(waiting[0].id, spot, facing))
        else:
            send(side, c.EndDeploymentStep())
    for _ in range(2):
        assert state.active is not None
        send(state.active, c.EndTurn())
    return streams, state


def test_digest_11_2_streams_of_everyone_but_the_owner_do_not_depend_on_the_cards_drawn() -> None:
    first, one = _game(B_FACES["first"])
    second, two = _game(B_FACES["second"])
    drawn = [tuple(e.id for e in s.classified[B]) for s in (one, two)]
    assert drawn[0] != drawn[1]  # the games differ in B's cards...
    assert one.classified[A] == two.classified[A]
    assert not any(card.achieved for s in (one, two) for cards in s.classified.values()
                   for card in cards)
    assert one.round == 2  # ...over a whole Game Round
    for name in ("A", "spectator"):
        assert first[name] == second[name], name
    for name in ("B", "caster"):  # ...which B and the casters read
        assert first[name] != second[name], name


def test_digest_11_2_the_owner_reads_its_cards_in_the_draw_and_its_snapshot() -> None:
    _, state = _game(B_FACES["first"])
    cards = [card.id for card in state.classified[B]]
    own = view_state(state, B)["classified"]["B"]["cards"]
    assert [card["id"] for card in own] == cards
    drawn = ClassifiedDrawn(B, tuple(cards), state.dice)
    assert view_event(drawn, CASTER, state) == view_event(drawn, B, state)
    assert "cards" not in (view_event(drawn, A, state) or {})
