"""The room's delayed audiences: their feeds, the timer that releases them, their frames.

A ``Room`` holds one ``DelayedAudiences``. The live path never sends a delayed audience
anything (``live``): each commit is handed to the feeds instead (``committed``) and
published to that audience alone once its delay has passed (``release``, run by the room's
actor on a ``ReleaseDue`` message its timer posts). A feed is loaded from the store when
the first viewer of its audience joins the room while it is in memory
(``spectator_delay.load_feed``), and then kept up to date from memory until the room stops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from server.fanout import Audience, Delivery, Fanout
from server.rooms.engine_port import Engine, Event, Plain, State
from server.rooms.live_game import LiveGame
from server.rooms.messages import ReleaseDue
from server.rooms.spectator_delay import Clock, Commit, DelayedFeed, delays, load_feed
from server.rooms.wake_up import WakeUp
from server.store import RoomSettings, RoomStore


class DelayedAudiences:
    def __init__(self, room_id: str, settings: RoomSettings, engine: Engine, store: RoomStore,
                 fanout: Fanout, clock: Clock, post: Callable[[ReleaseDue], None]) -> None:
        self.room_id = room_id
        self.delays = delays(settings)
        """The delayed audiences and their delays (ms); seats are never in it."""
        self.clock = clock
        self._engine = engine
        self._store = store
        self._fanout = fanout
        self._feeds: dict[Audience, DelayedFeed] = {}
        self._wake = WakeUp(partial(post, ReleaseDue()), clock)

    def live(self, audience: Audience) -> bool:
        """Whether ``audience`` gets the room's events as they happen."""
        return audience not in self.delays

    def delay_s(self, audience: Audience) -> float:
        return self.delays.get(audience, 0) / 1000

    def feed(self, audience: Audience) -> DelayedFeed | None:
        """The feed of a delayed audience that has one loaded (None for a live audience)."""
        return self._feeds.get(audience)

    def loaded(self, audience: Audience) -> DelayedFeed:
        """The feed of a delayed audience. Its viewers join only once it is loaded and it is
        kept until the room stops, so it is always there; if it were not, nothing live may
        stand in for it."""
        feed = self._feeds.get(audience)
        if feed is None:
            raise RuntimeError(f"room {self.room_id}: no feed for delayed {audience}")
        return feed

    def state_seen_by(self, audience: Audience, game: LiveGame) -> State:
        """The game state as ``audience`` may know it: live, or its feed's delayed point."""
        return game.state if self.live(audience) else self.loaded(audience).state

    def seen_by(self, audience: Audience, game: LiveGame) -> int:
        """The audience's version as it may know it: a delayed one's, at its feed's point."""
        if self.live(audience):
            return game.seen[audience]
        feed = self._feeds.get(audience)
        return 0 if feed is None else feed.seen

    async def ready(self, audience: Audience, game: LiveGame) -> None:
        """Load the feed of a delayed ``audience`` before its first viewer joins (a live
        one has none)."""
        if not self.live(audience):
            await self.open(audience, state=game.state, version=game.version,
                            seen=game.seen[audience])

    async def open(self, audience: Audience, *, state: State, version: int,
                   seen: int) -> DelayedFeed:
        """The feed of delayed ``audience``, loaded now if it is not yet (the room at
        global ``version`` with ``state``; ``seen``: the audience's live count)."""
        feed = self._feeds.get(audience)
        if feed is None:
            feed = await load_feed(self._engine, self._store, self.room_id, audience,
                                   self.delays[audience], self.clock(), live_state=state,
                                   live_version=version, live_seen=seen)
            self._feeds[audience] = feed
        self.release()  # a joining viewer starts where the clock says, even if a timer is late
        return feed

    def committed(self, version: int, committed_ms: int, events: Sequence[Event],
                  plains: Sequence[Plain], window_ms: int) -> None:
        """The room stored ``events`` (now at global ``version``) at ``committed_ms``."""
        if not self._feeds:
            return
        commit = Commit(version, committed_ms, tuple(events), tuple(plains), window_ms)
        for feed in self._feeds.values():
            feed.add(commit)
        self._arm()

    def release(self) -> None:
        """Publish to each delayed audience the events whose delay has passed, then wait for
        the next ones. Run on the timer's ``ReleaseDue`` and before a delayed viewer is
        answered from its feed (a join, ``sync``, ``history``): a timer that fires late
        (a busy loop) never makes a viewer's answer staler than the clock says."""
        now = self.clock()
        for audience, feed in self._feeds.items():
            released = feed.release(now)
            if released is None or not released[1]:
                continue  # (an audience that may know of none of them gets no frame, as live)
            frame = feed.events_frame(*released, now)
            spectator = frame if audience is Audience.SPECTATOR else b""
            caster = frame if audience is Audience.CASTER else b""
            self._fanout.publish(self.room_id,
                                 Delivery(feed.version, b"", b"", spectator, caster))
        self._arm()

    def close(self) -> None:
        self._wake.close()

    def _arm(self) -> None:
        """Wake the room when the earliest unreleased commit is due. With a test's fake
        clock this may be long after (or before) the clock says: the test calls
        ``Room.release_due`` itself, and a release at the wrong time releases nothing
        early, since ``release`` reads the clock."""
        dues = [due for feed in self._feeds.values() if (due := feed.due_ms()) is not None]
        self._wake.arm(min(dues) if dues else None)
