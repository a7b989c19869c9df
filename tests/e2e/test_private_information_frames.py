"""Over real websockets: the opponent and a spectator get the same frames, byte for byte
but for the ARO window's timing fields, whether or not the reactive side holds a trooper
in Hidden Deployment where it could react, or whose own Order it holds privately in its
turn (docs/fair-play.md, "What nobody else learns").

The same open script is played in two rooms of an N5 game: in one, B's Ghost (Hidden
Deployment) is hidden in the middle of the table, in A's trooper's Line of Fire, and B
passes its ARO and sets and lifts a Guts choice (all private); in the other the Ghost is
not on the table and B makes no private choice. A also names the Ghost's id in a command.
"""

from __future__ import annotations

from typing import Any

from protocol import codec
from protocol.messages import Accepted, Events, Rejected, Snapshot
from server.app import create_app
from server.rooms.rules_engine import RulesCoreEngine
from server.rules.ids import Side
from server.store import RoomSettings
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.helpers import settings
from tests.support.skirmish import Placement, skirmish
from tests.support.windows import closed, opened

GHOST = "B-t2"
OPEN: dict[str, Placement] = {
    "A-t3": (24.0, 6.0, 90.0), "A-t1": (10.0, 4.0, 90.0),
    "B-t3": (6.0, 40.0, 270.0), "B-t4": (40.0, 40.0, 270.0),
}
TIMING = ("remaining_ms", "deadline_ms")
ROOM_ID = "room"  # the two games are two rooms: their ids differ by construction


def _without_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_timing(v) for k, v in value.items() if k not in (*TIMING, ROOM_ID)}
    if isinstance(value, list):
        return [_without_timing(v) for v in value]
    return value


def _close(window: dict[str, Any]) -> dict[str, Any]:
    return {"type": "close_aro_window", "order": window["order"], "step": window["step"]}


async def _play(hidden_ghost: bool) -> tuple[list[Any], list[Any], list[str]]:
    """A's and the spectator's frames (timing fields removed), and the ARO steps at which
    the Ghost could pass (to show the script did put it in Line of Fire)."""
    placements = {**OPEN, GHOST: (30.0, 20.0, 270.0, "hidden")} if hidden_ghost else OPEN
    app_settings = settings()
    app = create_app(app_settings)
    async with running_server(app_settings, app=app) as base:
        created = await app.state.registry.create(
            RoomSettings("n5", 600.0, "public", fixed_seed=3),
            skirmish(placements, ruleset="n5", seed=3))
        room = created.meta.room_id
        a = await Client.connect(base, room, created.token_a)
        b = await Client.connect(base, room, created.token_b)
        spectator = await Client.connect(base, room)
        for client in (a, b, spectator):
            await client.until(Snapshot)
        ghost_eligible: list[str] = []
        numbers = iter(range(1, 100))

        async def a_says(body: dict[str, Any]) -> Accepted | Rejected:
            return await a.command(body, id=f"a{next(numbers)}")  # the same ids in both rooms

        async def b_answers_window() -> None:
            """B answers the window A's skill opened; A reads until it is closed."""
            window = await opened(b)
            if hidden_ghost:
                # Accepted only if the Ghost is eligible at this step (its owner's view).
                answer = await b.command({"type": "pass_aro", "trooper": GHOST})
                if isinstance(answer, Accepted):
                    ghost_eligible.append(GHOST)
                for fail in (True, False):
                    assert isinstance(await b.command(
                        {"type": "choose_guts_failure", "trooper": "B-t3", "fail": fail}),
                        Accepted)
            assert isinstance(await b.command(_close(window)), Accepted)
            await closed(a, window)

        for probe in (GHOST, "B-nobody"):
            refused = await a_says({"type": "activate", "trooper": probe, "order": "regular"})
            assert isinstance(refused, Rejected) and refused.code == "unknown_trooper"
        assert isinstance(await a_says(
            {"type": "activate", "trooper": "A-t3", "order": "regular"}), Accepted)
        assert isinstance(await a_says({"type": "declare_skill", "skill": {
            "type": "move", "route": [[24.0, 6.0], [24.0, 9.0]]}}), Accepted)
        await b_answers_window()
        refused = await a_says({"type": "declare_skill", "skill": {
            "type": "bs_attack", "weapon": "combi_rifle",
            "targets": [{"trooper": GHOST, "burst": 1}]}})
        assert isinstance(refused, Rejected) and refused.code == "unknown_trooper"
        assert isinstance(await a_says({"type": "declare_skill", "skill": {
            "type": "move", "route": [[24.0, 9.0], [24.0, 11.0]]}}), Accepted)
        await b_answers_window()
        last = await a_says({"type": "end_turn"})
        assert isinstance(last, Accepted)
        # B's turn: in one room its Order Count holds the Ghost's own private Order (seeds
        # 002/004); B leaves its Orders unspent. A sees the same count and the same end.
        counted = await b.until(Events, lambda m: any(
            e.get("type") == "orders_counted" and e.get("side") == "B" for e in m.events))
        own = next(e for e in counted.events if e.get("type") == "orders_counted")
        assert own["hidden"] == ([GHOST] if hidden_ghost else []), "B sees its private Order"
        assert isinstance(await b.command({"type": "end_turn"}), Accepted)
        await a.until(Events, lambda m: any(
            e.get("type") == "turn_ended" and e.get("side") == "B" for e in m.events))
        while spectator.version < a.version:
            await spectator.next()
        frames = [[_without_timing(codec.unpack_plain(raw)) for raw in client.raw]
                  for client in (a, spectator)]
        for client in (a, b, spectator):
            await client.close()
        return frames[0], frames[1], ghost_eligible


async def test_seed_002_the_opponent_and_spectators_get_the_same_frames_either_way() -> None:
    a_hidden, spectator_hidden, ghost = await _play(hidden_ghost=True)
    a_none, spectator_none, _ = await _play(hidden_ghost=False)
    # Eligible at the first ARO step; having answered, not again in the same Order.
    assert ghost == [GHOST], "the Ghost was in Line of Fire and passed, privately"
    assert len(a_hidden) > 10
    for index, (one, other) in enumerate(zip(a_hidden, a_none, strict=True)):
        assert one == other, f"A's frame {index} differs: {one} != {other}"
    for index, (one, other) in enumerate(zip(spectator_hidden, spectator_none, strict=True)):
        assert one == other, f"the spectator's frame {index} differs: {one} != {other}"


def test_a_live_rooms_dice_secret_is_256_bits_and_ids_come_from_another_key() -> None:
    """Nothing public is derived from the dice secret: trooper ids come from an independent
    random key, so neither tells anything about the other."""
    engine = RulesCoreEngine()
    first, second = engine.new_game("n5", None), engine.new_game("n5", None)
    for state in (first, second):
        assert len(bytes.fromhex(state.dice_source.secret)) == 32
        assert len(bytes.fromhex(state.id_key)) == 32
        assert state.id_key != state.dice_source.secret
    assert first.dice_source.secret != second.dice_source.secret
    assert first.id_key != second.id_key
    assert len(engine.dice_commitment(first)) == 64
    from dataclasses import replace

    from server.rules import commands as c
    from server.rules import engine as rules
    from tests.support.games import TEST_ENTROPY

    def ids(state: Any) -> tuple[Any, ...]:
        decision = rules.decide(state, Side.B, c.ChooseArmy("vesper-raiders", TEST_ENTROPY))
        return decision.events[0].trooper_ids  # type: ignore[union-attr]

    same_ids_other_secret = replace(first, dice_source=second.dice_source)
    same_secret_other_ids = replace(first, id_key=second.id_key)
    assert ids(same_ids_other_secret) == ids(first)
    assert ids(same_secret_other_ids) != ids(first)
    assert all(not tid.split("-", 1)[1].isdigit() for _, tid in ids(first))
