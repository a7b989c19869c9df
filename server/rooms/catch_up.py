"""What a joining, resuming or lagging viewer is sent to stand where the room stands.

A viewer that joins gets its ``welcome`` and then exactly one catch-up frame (``greet``):
an ``events`` frame with what it missed after its ``since`` (in its own numbering,
``numbering``; empty when it missed nothing, and always with the ARO window and the
clocks as they stand, which replace the client's), or, when it missed more than the store
still holds or never had anything, a ``snapshot`` of its view. A ``sync`` gets the same
catch-up (``resync``); a viewer too slow to read its frames gets a snapshot
(``snapshot_frame``); a client that wants its log asks for ``history`` pages
(``history``). A delayed viewer (``delayed_viewers``) is caught up from its feed, never
past its delayed point.

A crowd's snapshot shares its state: the view of one state is packed once per audience
and kept until the next commit (``committed``), so 10,000 spectators joining at one
version pack it once (docs/performance.md).
"""

from __future__ import annotations

from protocol.constants import ProtocolReason
from protocol.messages import HistoryRequest
from server.fanout import Audience
from server.rooms import frames
from server.rooms.aro_window import WindowDeadline
from server.rooms.clock_timer import ClockTimer
from server.rooms.delayed_viewers import DelayedAudiences
from server.rooms.engine_port import Engine, Plain, State
from server.rooms.history import HistoryPages
from server.rooms.live_game import LiveGame
from server.rooms.numbering import Seen, views_for
from server.rooms.presence import Presence
from server.rooms.seats import Member, frame_holder
from server.rooms.spectator_delay import Clock
from server.store import RoomMeta, RoomStore


class CatchUp:
    __slots__ = (
        "_clock", "_clocks", "_delayed", "_engine", "_game", "_history", "_meta", "_presence",
        "_public", "_store", "_views", "_window"
    )

    def __init__(self, game: LiveGame, meta: RoomMeta, engine: Engine, store: RoomStore,
                 delayed: DelayedAudiences, window: WindowDeadline, clocks: ClockTimer,
                 presence: Presence, clock: Clock) -> None:
        self._game = game
        self._meta = meta
        self._engine = engine
        self._store = store
        self._delayed = delayed
        self._window = window
        self._clocks = clocks
        self._presence = presence
        self._clock = clock
        self._history = HistoryPages(game.room_id, engine, store, game.version, game.seen)
        self._public: dict[str, object] | None = None  # _public_settings, once made
        self._views: dict[Audience, tuple[State, bytes]] = {}
        """Per crowd audience, the state its snapshot last showed and that state as it sees
        it, msgpack-encoded."""

    def committed(self, version: int, seen: Seen) -> None:
        """The room committed: it stands at global ``version`` with the counts ``seen``."""
        if self._views:
            self._views.clear()  # (views of the old state: never used again)
        self._history.checkpoints.committed(version, seen)

    async def greet(self, member: Member, since: int | None) -> None:
        """``member``'s welcome, then its catch-up from ``since``: written together where
        the member can hold its frames (a socket of this node), so a restart's thousands of
        returning viewers cost one write each, not two. Whatever else reaches the member
        meanwhile (a spectator count sent by its timer while the catch-up reads the store)
        is held too, in order, never ahead of the welcome."""
        audience = member.audience
        meta = self._meta
        holds = frame_holder(member)
        if holds is not None:
            holds.hold_frames()
        try:
            member.deliver(frames.welcome(
                self._game.room_id, audience, self._delayed.seen_by(audience, self._game),
                self._public_settings(), self._presence.statuses(),
                len(self._presence.spectators), meta.dice_commitment,
                meta.settings.fixed_dice, self._delayed.delay_s(audience)))
            await self.catch_up(member, since)
        finally:
            if holds is not None:
                holds.send_held()

    async def resync(self, member: Member, since: int | None) -> None:
        """A ``sync``: what is due to a delayed viewer first, as on a join."""
        if not self._delayed.live(member.audience):
            self._delayed.release()
        await self.catch_up(member, since)

    async def catch_up(self, member: Member, since: int | None) -> None:
        """Send ``member`` what it missed after ``since`` (in its own numbering): one
        ``events`` frame (the events if kept, none if it missed nothing, and the window as
        it stands), else a snapshot. A delayed viewer's, from its feed (``_late``)."""
        if not self._delayed.live(member.audience):
            await self._late(member, since)
            return
        if (
            since is not None
            and 0 <= since <= self._game.seen[member.audience]
            and await self._send_events_since(member, since)
        ):
            return
        member.deliver(self.snapshot_frame(member.audience))

    async def _send_events_since(self, member: Member, since: int) -> bool:
        """The audience's events after its ``since``-th. That event's global version is at
        least ``since`` (an audience sees a subsequence of the events), so the events after
        global version ``since`` hold all of them: the last ``missed`` this audience may
        know of are the ones it lacks."""
        # Sent even when nothing was missed: its window replaces the client's, which may be
        # out of date (a window dropped, or restored when the room was loaded again).
        game, audience = self._game, member.audience
        missed = game.seen[audience] - since
        view: list[Plain] = []
        if missed:
            payloads = await self._store.events_since(game.room_id, since)
            if payloads is None or len(payloads) != game.version - since:
                return False
            plains = frames.plains_of(payloads)
            events = [self._engine.event_from_plain(plain) for plain in plains]
            view = views_for(self._engine, game.state, events, plains, audience)[-missed:]
            if len(view) != missed:
                return False
        member.deliver(frames.events(since + 1, view, self._window.fields(),
                                     self._clocks.fields(game.state)))
        return True

    async def _late(self, member: Member, since: int | None) -> None:
        """``catch_up`` for a delayed viewer: what it missed up to its feed's point, never
        past it (the events if kept, with the window as it stood then), else the feed's
        snapshot."""
        feed = self._delayed.loaded(member.audience)
        now = self._clock()
        if since is not None and 0 <= since <= feed.seen:
            view: list[Plain] | None = []
            if since < feed.seen:
                payloads = await self._store.events_since(self._game.room_id, since)
                view = None if payloads is None else feed.missed(payloads, since)
            if view is not None:
                member.deliver(frames.events(since + 1, view, feed.window(now),
                                             feed.clocks(now)))
                return
        member.deliver(feed.snapshot_frame(self._presence.statuses(), now))

    def snapshot_frame(self, audience: Audience) -> bytes:
        """The viewer's full view now (a delayed viewer's: at its delayed point); callable
        from outside the room's task (it only reads)."""
        if not self._delayed.live(audience):
            return self._delayed.loaded(audience).snapshot_frame(self._presence.statuses(),
                                                                 self._clock())
        game = self._game
        version = game.seen[audience]
        if audience is Audience.A or audience is Audience.B:
            view = self._engine.view_state(game.state, audience.value)
            return frames.seat_snapshot(version, view, self._window.fields(),
                                        self._presence.statuses(), self._clocks.fields(game.state))
        window, seats = self._window.fields(), self._presence.statuses()
        clocks = self._clocks.fields(game.state)
        return frames.crowd_snapshot(version, self._packed_view(audience), window, seats, clocks)

    def _packed_view(self, audience: Audience) -> bytes:
        """The state as a crowd's ``audience`` sees it, encoded once per state: a crowd
        joining at one version (10,000 spectators in 30 s, docs/performance.md) shares it
        (a seat's audience has one connection, which asks for a snapshot when it joins or
        falls behind: its view is made each time, not kept, as a view of a whole table is
        kilobytes, on every room). The window's remaining time and the seats' statuses
        change between snapshots; they are not in it. A state is never changed in place
        (each commit makes a new one, and drops the views of the old)."""
        state = self._game.state
        cached = self._views.get(audience)
        if cached is not None and cached[0] is state:
            return cached[1]
        packed = frames.packed_view(self._engine.view_state(state, audience.value))
        self._views[audience] = (state, packed)
        return packed

    async def history(self, member: Member, request: HistoryRequest) -> None:
        """A page of the viewer's own events from its ``from`` on (``history``), up to its
        version now; none when ``from`` is past it."""
        if request.from_ < 1:
            member.deliver(frames.rejected(request.id, ProtocolReason.BAD_MESSAGE,
                                           "history: 'from' must be at least 1"))
            return
        audience, game = member.audience, self._game
        if not self._delayed.live(audience):
            self._delayed.release()
        state = self._delayed.state_seen_by(audience, game)  # (a delayed viewer's: its feed's)
        last = self._delayed.seen_by(audience, game)
        events: list[Plain] = []
        if request.from_ <= last:
            events = await self._history.page(state, audience, request.from_, game.version, last)
        member.deliver(frames.history(request.id, request.from_, events, last))

    def _public_settings(self) -> dict[str, object]:
        """The room's settings as every welcome shows them: made once (the meta is set when
        the room opens and never changes; a crowd's joins share the dict, which is only
        encoded)."""
        if self._public is None:
            settings = self._meta.settings
            self._public = {
                "ruleset": settings.ruleset, "aro_window_s": settings.aro_window_s,
                "visibility": settings.visibility, "spectator_delay_s": settings.spectator_delay_s,
                "clock_s": settings.clock_s, "aro_min_open_s": settings.aro_min_open_s,
                "mission": settings.mission or None,
                # The practice bot's seat and level (server/bot; None: two humans).
                "bot": ({"seat": settings.bot, "level": settings.bot_level}
                        if settings.bot else None),
                "table": self._engine.table_summary(settings.ruleset, settings.table)}
        return self._public
