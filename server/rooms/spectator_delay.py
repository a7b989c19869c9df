"""Delayed feeds: spectators (and casters) see the room as it stood some seconds ago.

In a room whose ``spectator_delay_s`` is above 0, every spectator sees each event that many
seconds after the room committed it; casters (organizer-made links that see both sides'
hidden information) always see it at least ``CASTER_MIN_DELAY_S`` late. Seats are never
delayed. Such an audience gets no live ``events`` frame at all: the room keeps one
``DelayedFeed`` per delayed audience, which holds the game state as it stood at the
delayed point (its *released* version), that audience's count of events up to it, and the
commits not released yet. When a commit's time plus the delay has passed (the room's
timer, or a test driving ``Room.release_due`` with a fake clock), the feed applies it to
its own state and the room publishes its events to that audience alone, in the
audience's own numbering (``numbering``). Everything else a delayed viewer gets --
welcome, catch-up after ``since``, ``sync``, snapshot, ``history``, ``measure`` -- is made
from the feed, never from the live room, so no path gets ahead of the delay. The ARO
window it shows is the one open at the delayed point with its deadline shifted by the
delay, so it counts down as it did live.

Nothing here depends on a timer surviving: each stored event carries its commit time
(``RoomStore.timeline``), so a room loaded after a restart or a takeover rebuilds each
feed exactly where it was (``load_feed``): the released version is the last one whose
commit time is at least the delay in the past, its state the room's first state with the
events up to it applied.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from protocol import codec
from protocol.messages import Events, Snapshot, window_fields
from server.fanout import Audience
from server.rooms.engine_port import Engine, Event, Plain, State
from server.rooms.numbering import unpack_room_snapshot, views_for
from server.store import RoomSettings, RoomStore

Clock = Callable[[], int]
"""Unix milliseconds now; rooms take one so that tests move time without sleeping."""

CASTER_MIN_DELAY_S = 60.0
"""A caster sees both sides' hidden information: never sooner than this after it happened."""

DELAYABLE: tuple[Audience, ...] = (Audience.SPECTATOR, Audience.CASTER)


def delay_ms(audience: Audience, settings: RoomSettings) -> int:
    """How late ``audience`` sees the room: 0 for seats (never delayed), the room's
    ``spectator_delay_s`` for spectators, at least ``CASTER_MIN_DELAY_S`` for casters."""
    if audience is Audience.SPECTATOR:
        return round(settings.spectator_delay_s * 1000)
    if audience is Audience.CASTER:
        return round(max(settings.spectator_delay_s, CASTER_MIN_DELAY_S) * 1000)
    return 0


def delays(settings: RoomSettings) -> dict[Audience, int]:
    """The delayed audiences of a room and their delays (ms); an audience not in it is live."""
    kept = {audience: delay_ms(audience, settings) for audience in DELAYABLE}
    return {audience: ms for audience, ms in kept.items() if ms > 0}


@dataclass(frozen=True, slots=True)
class Commit:
    """Events committed together (or within the same millisecond), not released yet."""

    version: int  # the room's global version after them
    committed_ms: int
    events: Sequence[Event]
    plains: Sequence[Plain]
    window_ms: int  # the deadline of the ARO window open after them (0: none)


class DelayedFeed:
    """One delayed audience's view of the room, ``delay`` ms behind it."""

    def __init__(self, engine: Engine, audience: Audience, delay: int, *, state: State,
                 version: int, seen: int, window_ms: int,
                 pending: Iterable[Commit] = ()) -> None:
        self.engine = engine
        self.audience = audience
        self.delay = delay
        self.state = state
        """The game as it stood at the released version."""
        self.version = version
        """The released global version: every event up to it has been sent."""
        self.seen = seen
        """The audience's count of events up to ``version`` (its version, as it sees it)."""
        self.window_ms = window_ms
        self._pending: deque[Commit] = deque(pending)
        self._view: tuple[State, Plain] | None = None  # the last snapshot's state, its view

    def add(self, commit: Commit) -> None:
        """A commit of the live room (in order), released once ``delay`` has passed."""
        self._pending.append(commit)

    def due_ms(self) -> int | None:
        """When the oldest commit not yet released is due (None: nothing waits)."""
        return self._pending[0].committed_ms + self.delay if self._pending else None

    def release(self, now_ms: int) -> tuple[int, list[Plain]] | None:
        """Release every commit due at ``now_ms``: the feed's state moves past them; returns
        the number of the first released event and the events as the audience sees them
        (possibly none), or None when nothing was due."""
        pending, engine, audience = self._pending, self.engine, self.audience
        if not pending or pending[0].committed_ms + self.delay > now_ms:
            return None
        first = self.seen + 1
        views: list[Plain] = []
        while pending and pending[0].committed_ms + self.delay <= now_ms:
            commit = pending.popleft()
            self.state = engine.apply_all(self.state, commit.events)
            views += views_for(engine, self.state, commit.events, commit.plains, audience)
            self.version = commit.version
            self.window_ms = commit.window_ms
        self.seen += len(views)
        return first, views

    def window(self, now_ms: int) -> dict[str, Plain] | None:
        """The ARO window open at the released point, its deadline shifted by the delay
        (so ``remaining_ms`` counts down as it did live), or None."""
        window = self.engine.pending_aro_window(self.state)
        if window is None or not self.window_ms:
            return None
        deadline = self.window_ms + self.delay
        return window_fields(window.order, window.step, window.reactive, deadline,
                             max(0, deadline - now_ms), window.guts)

    def clocks(self, now_ms: int) -> Plain | None:
        """The chess clocks as they stood at the delayed point: read from the released
        state at the room time ``delay`` ago, so they count down as they did live."""
        return self.engine.clocks_fields(self.state, now_ms - self.delay)

    def events_frame(self, first: int, views: list[Plain], now_ms: int) -> bytes:
        return codec.encode(Events(first, views, self.window(now_ms),
                                   clocks=self.clocks(now_ms)))

    def snapshot_frame(self, seats: dict[str, str], now_ms: int) -> bytes:
        """The audience's whole view at the released point (``seats``: live presence)."""
        # The view is made once per released state: a crowd joining shares it.
        if self._view is None or self._view[0] is not self.state:
            self._view = (self.state, self.engine.view_state(self.state, self.audience.value))
        return codec.encode(Snapshot(self.seen, self._view[1], self.window(now_ms), seats,
                                     self.clocks(now_ms)))

    def missed(self, payloads: Sequence[bytes], since: int) -> list[Plain] | None:
        """The audience's events after its ``since``-th up to the released point, from the
        stored events after global version ``since`` (``_send_events_since``'s reasoning:
        they hold all of them); None when the store's events do not add up."""
        wanted = self.seen - since
        if not wanted:
            return []
        released = list(payloads[: self.version - since])
        if len(released) != self.version - since:
            return None
        plains = [codec.unpack_plain(p) for p in released]
        events = [self.engine.event_from_plain(plain) for plain in plains]
        view = views_for(self.engine, self.state, events, plains, self.audience)[-wanted:]
        return view if len(view) == wanted else None


class FeedUnavailable(RuntimeError):
    """The store lacks what a delayed feed needs (it never should)."""


def released_by(committed_ms: Sequence[int], cutoff_ms: int) -> int:
    """How many of a room's events, from the first, a delayed audience has seen at
    ``cutoff_ms`` (now minus its delay): up to the first one committed after it."""
    return next((n for n, at in enumerate(committed_ms) if at > cutoff_ms),
                len(committed_ms))


async def load_feed(engine: Engine, store: RoomStore, room_id: str, audience: Audience,
                    delay: int, now_ms: int, *, live_state: State, live_version: int,
                    live_seen: int) -> DelayedFeed:
    """The feed of ``audience`` as it stands at ``now_ms``, from the store alone: after
    a restart or a takeover it resumes exactly where it was. The released version is
    the last whose commit (and every commit before it) is at least ``delay`` old; its
    state is the room's first state with the events up to it applied (a replay of the
    game so far: done once per feed while the room is in memory)."""
    timeline = await store.timeline(room_id)
    if timeline is None or len(timeline.events) != live_version:
        raise FeedUnavailable(f"room {room_id}: the store's events do not match the room")
    released = released_by(timeline.committed_ms, now_ms - delay)
    plains = [codec.unpack_plain(payload) for payload in timeline.events]
    events = [engine.event_from_plain(plain) for plain in plains]
    if timeline.first_snapshot is None:
        # A room stored before its first state was kept: its delay starts now (the
        # events stored until now are released; later ones are delayed).
        released = live_version
        state = live_state
    else:
        state_plain, _ = unpack_room_snapshot(timeline.first_snapshot)
        state = engine.apply_all(engine.state_from_plain(state_plain), events[:released])
    # Counting needs no state but a complete one (views read facts such as sides).
    unreleased = views_for(engine, live_state, events[released:], plains[released:],
                           audience)
    pending = []
    start = released
    while start < live_version:
        at = timeline.committed_ms[start]
        end = start
        while end < live_version and timeline.committed_ms[end] == at:
            end += 1
        pending.append(Commit(end, at, events[start:end], plains[start:end],
                              timeline.window_ms[end - 1]))
        start = end
    window_ms = timeline.window_ms[released - 1] if released else 0
    return DelayedFeed(engine, audience, delay, state=state, version=released,
                       seen=live_seen - len(unreleased), window_ms=window_ms,
                       pending=pending)
