"""The dashboard's kept states (``server.tournaments.folds``) give, at every step of a game,
what a full replay from the room's first state gives -- across the casters' delay, a clock
that goes back, a room taken over by another node and a room made again under the same id --
and a read folds only the events committed since the last one."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any
from unittest.mock import ANY

import httpx
import pytest

from protocol.codec import pack_plain, unpack_plain
from protocol.messages import Accepted as Answered
from server.app import create_app
from server.config import Settings
from server.fanout import AUDIENCES, Audience
from server.rooms.engine_port import Event, State
from server.rooms.numbering import pack_room_snapshot, state_from_stored, unpack_room_snapshot
from server.rooms.rules_engine import RulesCoreEngine
from server.rooms.spectator_delay import delay_ms
from server.rules import engine as rules
from server.rules.decision import Accepted
from server.rules.ids import Side
from server.rules.orders.game_sequence import victory_points
from server.rules.state import GameState
from server.store import MemoryRoomStore, RoomMeta, RoomSettings, RoomStore, StoredRoom, Timeline
from server.store.redis_store import RedisRoomStore, events_key, room_keys
from server.store.tournament_store import MemoryTournamentStore
from server.tournaments.folds import Folds
from server.tournaments.live import live_row, row_of
from server.tournaments.service import Tournaments
from testkit.redis_process import RedisProcess
from testkit.scripted_game import TABLE, plan
from testkit.wsclient import Client
from tests.support.liveness import play_random_game
from tests.tournaments.helpers import Organizer, app_settings, serving

ARMY = "helion-c1-patrol"
ENGINE = RulesCoreEngine()
SNAPSHOT_EVERY = Settings().snapshot_every  # as the rooms' default


class CountingEngine(RulesCoreEngine):
    """The rules core, counting the events it folds and the states it decodes."""

    def __init__(self) -> None:
        self.folded = 0
        self.decoded_states = 0

    def apply_all(self, state: State, events_: Sequence[Event]) -> State:
        self.folded += len(events_)
        return super().apply_all(state, events_)

    def state_from_plain(self, plain: Any, armies: Any = None) -> State:
        self.decoded_states += 1
        return super().state_from_plain(plain, armies)


class CountingStore(MemoryRoomStore):
    """Counts the whole-room reads (``timeline``) and the room loads the folds make."""

    def __init__(self) -> None:
        super().__init__()
        self.timelines = 0
        self.loads = 0

    async def timeline(self, room_id: str) -> Timeline | None:
        self.timelines += 1
        return await super().timeline(room_id)

    async def load_room(self, room_id: str) -> StoredRoom | None:
        self.loads += 1
        return await super().load_room(room_id)


class Room:
    """A room written to a store as a room writes it: its events with their commit times,
    and a snapshot every ``SNAPSHOT_EVERY`` versions."""

    def __init__(self, store: RoomStore, room_id: str, first: GameState, delay_s: float = 0.0
                 ) -> None:
        self.store, self.room_id, self.state = store, room_id, first
        self.first = first
        self.delay_s = delay_s
        self.version = 0
        self.snapshot_version = 0
        self.fence = 0

    async def create(self) -> None:
        meta = RoomMeta(self.room_id, RoomSettings("codeone", 30.0, "public",
                                                   spectator_delay_s=self.delay_s),
                        "a" * 64, "b" * 64, created_ms=0)
        await self.store.create_room(meta, self._snapshot(self.state), None)
        await self.take("node-1")

    async def take(self, node: str) -> None:
        """A (new) owner claims the room: a takeover."""
        fence = await self.store.claim_room(self.room_id, node)
        assert fence is not None
        self.fence = fence

    def _snapshot(self, state: State) -> bytes:
        return pack_room_snapshot(ENGINE.state_to_plain(state),
                                  {audience: 0 for audience in AUDIENCES})

    async def commit(self, events: Sequence[Event], state: GameState, at_ms: int) -> None:
        snapshot = None
        if self.version + len(events) - self.snapshot_version >= SNAPSHOT_EVERY:
            snapshot = self._snapshot(state)
            self.snapshot_version = self.version + len(events)
        self.version = await self.store.append(
            self.room_id, fence=self.fence, expected_version=self.version,
            events=[pack_plain(ENGINE.event_to_plain(e)) for e in events], snapshot=snapshot,
            deadlines=(), listing=None, committed_ms=at_ms)
        self.state = state

    async def play(self, batches: Sequence[Sequence[Event]], clock: int) -> int:
        """Commit each batch a second after the one before, from ``clock``; the time of
        the last commit."""
        for events in batches:
            clock += 1_000
            await self.commit(events, ENGINE.apply_all(self.state, events), clock)
        return clock


def bench_game(seed: int = 7) -> tuple[GameState, list[tuple[Event, ...]]]:
    """The benchmark's scripted game: its first state and each command's events."""
    state = ENGINE.new_game("codeone", seed, TABLE)
    first = state
    batches = []
    for side, body in plan(seed).commands(clock_closes_windows=True):
        verdict = ENGINE.decide(state, side, ENGINE.parse_command(body))
        assert verdict.events is not None and verdict.state is not None, body
        batches.append(tuple(verdict.events))
        state = verdict.state
    return first, batches


def random_game(monkeypatch: pytest.MonkeyPatch, ruleset: str, seed: int
                ) -> tuple[GameState, list[tuple[Event, ...]]]:
    """A random legal game (tests/support/liveness) played to its end: each accepted
    command's events."""
    batches: list[tuple[Event, ...]] = []
    decide = rules.decide

    def recorded(*args: Any, **kwargs: Any) -> Any:
        decision = decide(*args, **kwargs)
        if isinstance(decision, Accepted):
            batches.append(decision.events)
        return decision

    with monkeypatch.context() as patch:
        patch.setattr(rules, "decide", recorded)
        log = play_random_game(ruleset, seed, orders_per_turn=3)
    assert log.state.result is not None
    first = rules.new_game(rules.GameSetup(ruleset=ruleset, seed=seed))
    return first, batches


async def replayed(store: RoomStore, room_id: str, now_ms: int
                   ) -> tuple[dict[str, Any], State, State | None]:
    """The dashboard's row as it was made before the folds were kept: the state shown
    (now, from the latest snapshot; in a delayed room the spectators', from the room's
    first state), the casters' from the room's first state, each read whole. Also both
    states."""
    stored = await store.load_room(room_id)
    assert stored is not None
    timeline = await store.timeline(room_id)
    assert timeline is not None and timeline.first_snapshot is not None
    first, _ = unpack_room_snapshot(timeline.first_snapshot)
    spectator_delay = delay_ms(Audience.SPECTATOR, stored.meta.settings)
    if spectator_delay:
        seen = next((n for n, at in enumerate(timeline.committed_ms)
                     if at > now_ms - spectator_delay), len(timeline.events))
        now = ENGINE.apply_all(ENGINE.state_from_plain(first),
                               [ENGINE.event_from_plain(unpack_plain(e))
                                for e in timeline.events[:seen]])
    else:
        now, _ = state_from_stored(ENGINE, stored.snapshot, stored.snapshot_version,
                                   stored.events, stored.armies)
    summary = ENGINE.public_summary(now)
    row: dict[str, Any] = {"gone": False, "phase": summary["phase"],
                           "game_round": summary["round"], "turn": summary["turn"],
                           "active": summary["active"], "over": summary["phase"] == "game_over"}
    clocks = now.clocks
    row["clocks"] = None if clocks is None else {
        **{side.value: int(ms) for side, ms in clocks.remaining.items()},
        "running": None if clocks.running is None else clocks.running.value,
        "since_ms": clocks.since_ms + spectator_delay}
    row["as_of_ms"] = now_ms - spectator_delay if spectator_delay else None
    cutoff = now_ms - delay_ms(Audience.CASTER, stored.meta.settings)
    released = next((n for n, at in enumerate(timeline.committed_ms) if at > cutoff),
                    len(timeline.events))
    casters = ENGINE.apply_all(ENGINE.state_from_plain(first),
                               [ENGINE.event_from_plain(unpack_plain(e))
                                for e in timeline.events[:released]])
    if released == 0:
        row["vp"], row["vp_as_of_ms"] = None, None
    elif not isinstance(casters, GameState) or len(casters.armies) < 2:
        row["vp"], row["vp_as_of_ms"] = None, cutoff
    else:
        row["vp"] = {side: victory_points(casters, Side(side)) for side in ("A", "B")}
        row["vp_as_of_ms"] = cutoff
    return row, now, casters


async def check_every_step(store: RoomStore, first: GameState,
                           batches: list[tuple[Event, ...]], seed: int,
                           delay_s: float = 0.0, to_the_end: bool = True) -> None:
    """Play the game into ``store`` with irregular commit times; after each command read the
    table at a random time (often inside the casters' delay, sometimes before the last
    read: a clock that went back) and compare with the full replay."""
    rng = random.Random(seed)
    room = Room(store, f"folds-{seed}-{rng.randrange(10**9)}", first, delay_s)
    await room.create()
    folds = Folds(store, ENGINE)
    clock = 1_800_000_000_000
    state = first
    for number, events in enumerate(batches):
        state = ENGINE.apply_all(state, events)
        clock += rng.choice((0, 0, 500, 5_000, 30_000, 61_000))
        await room.commit(events, state, clock)
        if number == len(batches) // 2:
            await room.take("node-2")  # another node takes the room over mid-game
        for _ in range(rng.choice((1, 1, 2))):
            now = clock + rng.choice((-20_000, 0, 10_000, 59_999, 60_000, 60_001, 90_000,
                                      200_000))
            read = await folds.read(room.room_id, now)
            assert read is not None
            expected, now_state, casters = await replayed(store, room.room_id, now)
            assert row_of(ENGINE, read) == expected, (number, now)
            assert read.shown == now_state, number
            assert read.casters is not None and read.casters.state == casters, number
    assert state.result is not None or not to_the_end, "the game was played to its end"


@pytest.mark.slow  # a whole game, every step replayed (16 s)
async def test_the_kept_states_are_the_full_replay_at_every_step_of_the_bench_game() -> None:
    first, batches = bench_game()
    await check_every_step(MemoryRoomStore(), first, batches, seed=1)


async def test_the_kept_states_are_the_full_replay_on_redis_with_a_spectator_delay(
        redis_store: RedisRoomStore) -> None:
    first, batches = bench_game()  # (its first 150 commands: each step replays it whole)
    await check_every_step(redis_store, first, batches[:150], seed=2, delay_s=90.0,
                           to_the_end=False)


async def test_a_delayed_rooms_shown_state_is_the_spectators_full_replay_at_every_step(
        ) -> None:
    """A 20 s spectator delay: the state shown is the spectators' (20 s late), the VP the
    casters' (60 s late): two cut-offs, both checked against the full replay."""
    first, batches = bench_game()
    await check_every_step(MemoryRoomStore(), first, batches[:150], seed=3, delay_s=20.0,
                           to_the_end=False)


@pytest.mark.slow  # whole random games, every step replayed (43 s)
async def test_the_kept_states_are_the_full_replay_at_every_step_of_a_random_game(
        monkeypatch: pytest.MonkeyPatch) -> None:
    first, batches = random_game(monkeypatch, "n5", 1)
    await check_every_step(MemoryRoomStore(), first, batches, seed=3)


async def test_a_second_read_folds_only_the_events_committed_since() -> None:
    first, batches = bench_game()
    store = CountingStore()
    room = Room(store, "counted", first)
    await room.create()
    engine = CountingEngine()
    folds = Folds(store, engine)
    clock, state, committed = 1_800_000_000_000, first, 0
    for events in batches[:200]:
        state = ENGINE.apply_all(state, events)
        clock += 1_000
        await room.commit(events, state, clock)
        committed += len(events)
    later = clock + 60_000  # every event released to casters
    assert await folds.read("counted", later) is not None
    assert (engine.folded, engine.decoded_states, store.timelines) == (committed, 1, 1)

    engine.folded = 0
    again = await folds.read("counted", later + 1_000)
    assert again is not None and again.casters is not None
    assert again.casters.version == committed
    assert (engine.folded, engine.decoded_states, store.timelines) == (0, 1, 1), \
        "nothing new: nothing folded, nothing read whole"

    added = 0
    for events in batches[200:210]:
        state = ENGINE.apply_all(state, events)
        clock += 1_000
        await room.commit(events, state, clock)
        added += len(events)
    read = await folds.read("counted", clock + 60_000)
    assert read is not None and read.shown == state
    assert (engine.folded, engine.decoded_states, store.timelines) == (added, 1, 1)

    # Inside the casters' delay: the now state runs ahead of theirs, and the next read
    # continues both (the events between them are folded for the casters only).
    engine.folded = 0
    held, before = 0, clock
    for events in batches[210:220]:
        state = ENGINE.apply_all(state, events)
        clock += 1_000
        await room.commit(events, state, clock)
        held += len(events)
    # The casters' delay ends a ms before the first of these 10 commits is released.
    read = await folds.read("counted", before + 60_999)
    assert read is not None and read.shown == state and read.casters is not None
    assert read.casters.version == committed + added
    assert engine.folded == held
    engine.folded = 0
    read = await folds.read("counted", clock + 60_000)
    assert read is not None and read.casters is not None
    assert read.casters.version == committed + added + held
    assert engine.folded == held and store.timelines == 1
    assert store.loads == 1, "a read continuing the kept states asks for the version alone"


async def test_the_casters_view_is_never_ahead_of_a_clock_that_went_back() -> None:
    first, batches = bench_game()
    store = CountingStore()
    room = Room(store, "back", first)
    await room.create()
    folds = Folds(store, ENGINE)
    clock = await room.play(batches[:120], 1_800_000_000_000)
    ahead = await folds.read("back", clock + 60_000)
    assert ahead is not None and ahead.casters is not None
    back = await folds.read("back", clock)  # 60 s earlier: the last minute not seen yet
    assert back is not None and back.casters is not None
    assert back.casters.version < ahead.casters.version
    assert back.casters.latest_ms <= clock - 60_000
    assert store.timelines == 2, "read again from the first state"
    assert back.casters.state == (await replayed(store, "back", clock))[2]


async def test_a_room_made_again_under_its_id_is_read_from_its_first_state(
        redis_server: RedisProcess) -> None:
    """Two nodes on one Redis: node 1 keeps a room's states; the room is deleted and made
    again under the same id with another game (longer than the kept one); node 1's next read
    is the new game's, as node 2's full read is."""
    node_1, node_2 = (RedisRoomStore.from_url(redis_server.url) for _ in range(2))
    try:
        first, batches = bench_game(7)
        room = Room(node_1, "again", first)
        await node_1._redis.delete(*room_keys("again"))
        await room.create()
        folds_1 = Folds(node_1, ENGINE)
        clock = await room.play(batches[:50], 1_800_000_000_000)
        kept = await folds_1.read("again", clock + 60_000)
        assert kept is not None

        await node_1._redis.delete(*room_keys("again"))
        assert await node_1._redis.exists(events_key("again")) == 0
        other_first, other = bench_game(8)
        remade = Room(node_2, "again", other_first)
        await remade.create()
        clock = await remade.play(other[:80], clock)
        read = await folds_1.read("again", clock + 60_000)
        fresh = await Folds(node_2, ENGINE).read("again", clock + 60_000)
        assert read is not None and fresh is not None
        assert read.shown == remade.state == fresh.shown
        assert read.casters == fresh.casters
        assert row_of(ENGINE, read) == (await replayed(node_2, "again", clock + 60_000))[0]
    finally:
        for store in (node_1, node_2):
            await store.close()


async def test_at_most_the_rooms_kept_and_a_gone_room_is_forgotten() -> None:
    first, batches = bench_game()
    store = CountingStore()
    folds = Folds(store, ENGINE, capacity=2)
    for name in ("r1", "r2", "r3"):
        room = Room(store, name, first)
        await room.create()
        await room.commit(batches[0], ENGINE.apply_all(first, batches[0]), 1)
        assert await folds.read(name, 100_000) is not None
    assert len(folds) == 2
    assert await folds.read("r1", 100_000) is not None  # forgotten: read whole again
    assert store.timelines == 4
    row, meta = await live_row(folds, "no-such-room", 100_000)
    assert meta is None and row["gone"] is True and row["vp"] is None


async def test_the_dashboard_keeps_the_tables_folds_between_reads() -> None:
    """Through the HTTP API: a second dashboard read with nothing new in the game folds no
    event and decodes no state; after a command, only that command's events."""
    settings = app_settings()
    engine = CountingEngine()
    rooms = MemoryRoomStore()
    app = create_app(settings, store=rooms, tournaments=Tournaments(
        MemoryTournamentStore(), rooms, lambda: app.state.registry.clock(), engine=engine))
    async with serving(app, settings) as url, httpx.AsyncClient(base_url=url) as http:
        organizer, _ = await Organizer.create(http, rounds=1)
        tokens = [(await organizer.register(n, ARMY))["token"] for n in ("Ana", "Ben")]
        await organizer.act("start_round")
        current = (await organizer.me(tokens[0]))["current"]
        seat = await Client.connect(url, current["room"], current["seat_token"])
        try:
            answer = await seat.command({"type": "choose_army", "army": ARMY,
                                         "entropy": "a" * 64})
            assert isinstance(answer, Answered), answer
            first = (await organizer.dashboard())["tables"][0]
            assert engine.folded == answer.version and engine.decoded_states == 1
            engine.folded = 0
            assert (await organizer.dashboard())["tables"][0] == {
                **first, "caster_link": ANY, "overlay_link": ANY}
            assert (engine.folded, engine.decoded_states) == (0, 1)
            answer_b = await Client.connect(url, current["room"], (await organizer.me(
                tokens[1]))["current"]["seat_token"])
            try:
                chosen = await answer_b.command({"type": "choose_army", "army": ARMY,
                                                 "entropy": "b" * 64})
                assert isinstance(chosen, Answered), chosen
            finally:
                await answer_b.close()
            row = (await organizer.dashboard())["tables"][0]
            assert row["phase"] != "army_selection"
            assert (engine.folded, engine.decoded_states) == (chosen.version - answer.version, 1)
        finally:
            await seat.close()


async def test_commits_since_gives_the_events_after_a_version_with_their_times(
        redis_store: RedisRoomStore) -> None:
    """``RoomStore.commits_since`` on both stores: the events after a version with the
    commit times ``timeline`` gives; None for a version the room has not passed, a negative
    one, or no room."""
    first, batches = bench_game()
    for store in (MemoryRoomStore(), redis_store):
        room = Room(store, f"commits-{type(store).__name__}", first)
        await room.create()
        state = first
        for at, events in enumerate(batches[:3], 1):
            state = ENGINE.apply_all(state, events)
            await room.commit(events, state, at * 1_000)
        timeline = await store.timeline(room.room_id)
        assert timeline is not None
        whole = await store.commits_since(room.room_id, 0)
        assert whole is not None
        assert (whole.events, whole.committed_ms) == (timeline.events, timeline.committed_ms)
        tail = await store.commits_since(room.room_id, room.version - 1)
        assert tail is not None and tail.events == timeline.events[-1:]
        assert tail.committed_ms == (3_000,)
        end = await store.commits_since(room.room_id, room.version)
        assert end is not None and end.events == () and end.committed_ms == ()
        assert await store.commits_since(room.room_id, room.version + 1) is None
        assert await store.commits_since(room.room_id, -1) is None
        assert await store.commits_since("no-such-room", 0) is None


async def test_a_room_made_again_one_version_short_is_read_from_its_first_state(
        redis_store: RedisRoomStore) -> None:
    """The kept casters' state is at version v; the room made again holds v - 1 events (the
    event the check reads is not there): read from the first state, not an error."""
    first, batches = bench_game(7)
    await redis_store.client.delete(*room_keys("short"))
    room = Room(redis_store, "short", first)
    await room.create()
    folds = Folds(redis_store, ENGINE)
    state = first
    for events in batches[:5]:
        state = ENGINE.apply_all(state, events)
        await room.commit(events, state, 1_000)
    kept = await folds.read("short", 100_000)
    assert kept is not None and kept.casters is not None
    await redis_store.client.delete(*room_keys("short"))
    remade = Room(redis_store, "short", first)
    await remade.create()
    state = first
    for event in [e for events in batches[:5] for e in events][:kept.casters.version - 1]:
        state = ENGINE.apply_all(state, [event])
        await remade.commit([event], state, 1_000)
    assert remade.version == kept.casters.version - 1
    read = await folds.read("short", 100_000)
    assert read is not None and read.casters is not None
    assert read.casters.version == remade.version
    assert row_of(ENGINE, read) == (await replayed(redis_store, "short", 100_000))[0]
