"""The room actor: one asyncio task per room, the only writer of that room's game.

Everything that changes the room arrives through ``inbox`` and is handled in order: joins
and leaves, commands, ``sync`` and ``history`` requests, ARO window deadlines and
grace-period expiries.
A command is accepted only after its events (and, every ``snapshot_every`` versions or at a
change of turn, a snapshot of the new state) are appended to the store; then the room folds
them into its state, bumps its version and publishes one ``events`` frame per audience
(each through that viewer's view, with the ARO window as it then stands), so both players
and every spectator see an activation or a result at the same time. The commander's frame
also names its command (``accepted``): that frame is the command's answer. See
docs/server.md for the policies.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence

from protocol import codec
from protocol.constants import PROTOCOL_VERSION, CloseCode, ProtocolReason
from protocol.messages import (
    Accepted,
    Command,
    Events,
    History,
    HistoryRequest,
    Measure,
    Options,
    Presence,
    Rejected,
    SeatStatus,
    Snapshot,
    Spectators,
    Welcome,
    window_fields,
)
from server.config import Settings
from server.fanout import AUDIENCES, Audience, Delivery, Fanout
from server.fanout.slices import loop_slices
from server.log_format import current_room
from server.metrics import (
    ARO_CLOSE_LATENESS,
    COMMAND_LATENCY,
    COMMAND_OUTCOMES,
    private_write,
)
from server.rooms.clock_timer import ClockTimer
from server.rooms.delayed_viewers import DelayedAudiences
from server.rooms.engine_port import (
    AroWindow,
    CommandFormatError,
    Engine,
    Plain,
    State,
    Verdict,
)
from server.rooms.event_frames import Answering, events_delivery
from server.rooms.history import HistoryPages
from server.rooms.inbox import RoomInbox
from server.rooms.listing_pace import ListingPace
from server.rooms.measuring import measurement_frame
from server.rooms.messages import (
    AskHistory,
    ClockDue,
    GraceExpired,
    HeldCloseDue,
    IdleExpired,
    InboxMessage,
    Join,
    Leave,
    ListingDue,
    ReleaseDue,
    Resync,
    Stop,
    Submit,
    WindowExpired,
)
from server.rooms.numbering import (
    NONE_SEEN,
    Seen,
    audience_views,
    counted,
    pack_room_snapshot,
    views_for,
)
from server.rooms.retention import retention_ms
from server.rooms.seats import (
    ABANDONED_AT_MS,
    CONNECTED_AT_MS,
    SEAT_GRACE,
    AnswerCache,
    Member,
    Seat,
    presence_deadlines,
    role_seat,
)
from server.rooms.slow_commands import SLOW_COMMANDS
from server.rooms.spectator_count import SpectatorCount
from server.rooms.spectator_delay import Clock, DelayedFeed
from server.rooms.window_hold import WindowHold
from server.store import (
    Answer,
    Deadline,
    Listing,
    RoomMeta,
    RoomStore,
    StaleWriter,
    StorageUnavailable,
)
from server.store.interface import TRY_AGAIN

log = logging.getLogger(__name__)

ARO_WINDOW = "aro_window"
CLOSE_ARO_WINDOW = "close_aro_window"  # the reactive player's close (a held window's waits)
BAD_COMMAND = "bad_command"  # the rules core's Reason.BAD_COMMAND
STORAGE_RETRY_S = 0.5
"""How soon a deadline whose write found the store unavailable is tried again."""


class RoomStopped(Exception):
    """The room stopped before it could take the request."""


def now_ms() -> int:
    return int(time.time() * 1000)


class Room:
    def __init__(
        self,
        meta: RoomMeta,
        *,
        state: State,
        version: int,
        fence: int,
        deadlines: Sequence[Deadline],
        engine: Engine,
        store: RoomStore,
        fanout: Fanout,
        settings: Settings,
        snapshot_version: int = 0,
        seen: Seen = NONE_SEEN,
        answers: Sequence[Answer] = (),
        clock: Clock = now_ms,
    ) -> None:
        """``snapshot_version``: the version of the store's latest snapshot of this room;
        ``seen``: each audience's own count of events at ``version`` (``numbering``);
        ``answers``: the stored answers to the seats' latest commands, oldest first;
        ``clock``: Unix ms now, for commit times and delayed feeds (tests pass a fake)."""
        self.meta = meta
        self._public: dict[str, object] | None = None  # _public_settings, once made
        self.room_id = meta.room_id
        self.state = state
        self.version = version
        """The global version: every stored event. Viewers never see it (``seen``)."""
        self.seen: dict[Audience, int] = dict(seen)
        self.inbox: RoomInbox[InboxMessage] = RoomInbox(settings.inbox_size)
        self.stopped = False
        self.left_idle = False  # stopped because nobody was connected (its lease may go now)
        self._fence = fence
        self._snapshot_version = snapshot_version
        self._engine = engine
        self._store = store
        self._fanout = fanout
        self._settings = settings
        self._window_s = meta.settings.aro_window_s
        self._seats = {
            side: Seat(side, AnswerCache(settings.answer_cache_size)) for side in ("A", "B")
        }
        for answer in answers:
            if answer.seat in self._seats:
                self._seats[answer.seat].answers.put(answer.command_id, answer.frame)
        self._spectators: set[Member] = set()
        self._listing_stale = False  # a spectator's join or leave is not listed yet
        self._listing_pace = ListingPace(lambda: self.inbox.post_crowd(ListingDue()))
        self._spectator_count = SpectatorCount(self._send_spectator_count,
                                               audience=lambda: len(self._spectators))
        self._options: dict[Audience, tuple[int, bytes]] = {}
        """Per audience, the global version and the options frame made at it."""
        self._views: dict[Audience, tuple[State, bytes]] = {}
        """Per crowd audience, the state its snapshot last showed and that state as it sees
        it, msgpack-encoded."""
        self._window: AroWindow | None = None
        self._window_deadline_ms = 0
        self._last_store_s = 0.0  # how long the last append took (a slow command's log)
        # Whether the command being handled is counted in the metrics: not when its outcome
        # is its seat's own (server/metrics.py, "A seat's private actions").
        self._command_counted = True
        self._window_timer: asyncio.TimerHandle | None = None
        self._idle_timer: asyncio.TimerHandle | None = None
        self._idle_epoch = 0
        self._stored_deadlines = {d.key: d.at_ms for d in deadlines if d.kind == ARO_WINDOW}
        self._stored_presence = {d.key: d.at_ms for d in deadlines if d.kind == SEAT_GRACE}
        self._history = HistoryPages(self.room_id, engine, store, version, self.seen)
        self._clock = clock
        self._delayed = DelayedAudiences(self.room_id, meta.settings, engine, store, fanout,
                                         clock, self.inbox.post)
        self._chess_clock = ClockTimer(clock, self.inbox.post)
        self._hold = WindowHold(meta.settings.aro_min_open_s, self._window_s, clock,
                                self.inbox.post, deadlines)

    # --- the doors into the inbox (called by the transport) -----------------------------

    async def join(self, member: Member, seat: str | None, since: int | None,
                   greet: bool = True) -> None:
        """Register ``member`` and send it the welcome and its catch-up (unless ``greet`` is
        False: a relayed spectator its node greeted from a crowd kit); raises if the room
        stopped first."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self.stopped:
            raise RoomStopped(self.room_id)
        seat = role_seat(seat)
        # A spectator's or caster's join waits behind seats' commands (``RoomInbox``).
        (self.inbox.post if seat is not None else self.inbox.post_crowd)(
            Join(member, seat, since, done, greet))
        await done

    def submit(self, member: Member, seat: str | None, command: Command) -> bool:
        """Queue a command; False when the inbox is full (the caller answers room_busy).
        A seat's command holds the node's crowds' fan-out until it is handled."""
        seat = role_seat(seat)
        slices = loop_slices() if seat is not None else None
        hold = slices.hold() if slices is not None else None
        if self.inbox.offer(Submit(member, seat, command, time.perf_counter(), hold)):
            return True
        if hold is not None:
            hold.release()
        COMMAND_OUTCOMES.rejected(ProtocolReason.ROOM_BUSY)
        return False

    def leave(self, member: Member) -> None:
        self._post_for(member, Leave(member))

    def resync(self, member: Member, since: int | None) -> None:
        self._post_for(member, Resync(member, since))

    def _post_for(self, member: Member, message: InboxMessage) -> None:
        """A read-only viewer's message in the crowd's lane, after its join."""
        if member.audience is Audience.A or member.audience is Audience.B:
            self.inbox.post(message)
        else:
            self.inbox.post_crowd(message)

    def stop(self, code: int, reason: str) -> None:
        self.inbox.post(Stop(code, reason))

    def release_due(self) -> None:
        """Release to the delayed audiences what their delay has passed for (the room's own
        timer does it; tests with a fake clock call it after moving the clock)."""
        self.inbox.post(ReleaseDue())

    def clock_due(self) -> None:
        """Check the running chess clock against the room's clock (its own timer does it;
        tests with a fake clock call it after moving the clock)."""
        self.inbox.post(ClockDue())

    def request_options(self, member: Member) -> None:
        member.deliver(self.options_frame(member.audience))

    def history(self, member: Member, request: HistoryRequest) -> bool:
        """Queue a ``history`` request; False when the inbox is full (answer room_busy)."""
        return self.inbox.offer(AskHistory(member, request))

    def measure(self, member: Member, request: Measure) -> None:
        """Answer a ``measure`` at once: it only reads the state (``measuring``) -- a delayed
        viewer's, the state at its delayed point."""
        state = self._state_seen_by(member.audience)
        member.deliver(measurement_frame(self._engine, state, member.audience, request))

    def overflow_frame(self, member: Member) -> bytes:
        return self.snapshot_frame(member.audience)

    @property
    def fence(self) -> int:
        """The fencing token this room writes with (renewed with its lease)."""
        return self._fence

    # --- the actor loop -----------------------------------------------------------------

    async def run(self) -> None:
        """Handle inbox messages until ``Stop``; one failing message never stops the room."""
        current_room.set(self.room_id)  # every log line of this task names the room
        window = self._engine.pending_aro_window(self.state)
        if window is not None:
            self._open_window(window, self._stored_deadlines.get(window.key))
        self._arm_chess_clock()  # (from the stored state: a restarted room's same deadline)
        self._restore_presence()
        self._arm_idle()
        while True:
            message = await self.inbox.get()
            if isinstance(message, Stop):
                self._shut(message.close_code, message.reason)
                return
            if isinstance(message, IdleExpired):
                if self._idle_now(message):
                    log.info("room %s: idle; leaving memory", self.room_id)
                    self.left_idle = True
                    self._shut(CloseCode.GOING_AWAY, "room idle")
                    return
                continue
            try:
                await self._handle(message)
            except StaleWriter:
                log.warning("room %s lost its right to write; stopping it", self.room_id)
                self._shut(CloseCode.ROOM_UNAVAILABLE, "room moved")
                return
            except StorageUnavailable as error:
                log.warning("room %s: %s", self.room_id, error)
                self._after_storage_failure(message)
            except Exception:
                log.exception("room %s failed on %s", self.room_id, type(message).__name__)
                self._after_failure(message)

    async def _handle(self, message: InboxMessage) -> None:
        if isinstance(message, Submit):
            started = time.perf_counter()
            cpu_started = time.thread_time()
            self._last_store_s = 0.0
            self._command_counted = True
            try:
                await self._on_submit(message)
            finally:  # (a failure is answered right after, by _after_failure)
                if message.hold is not None:
                    message.hold.release()
                done = time.perf_counter()
                if self._command_counted:
                    COMMAND_LATENCY.observe(done - message.received)
                SLOW_COMMANDS.took(self.room_id, started - message.received,
                                   done - started, self._last_store_s,
                                   time.thread_time() - cpu_started)
        elif isinstance(message, Join):
            await self._on_join(message)
        elif isinstance(message, Leave):
            await self._on_leave(message.member)
        elif isinstance(message, Resync):
            if not self._delayed.live(message.member.audience):
                self._delayed.release()  # (what is due first, as on a join)
            await self._catch_up(message.member, message.since)
        elif isinstance(message, AskHistory):
            await self._on_history(message)
        elif isinstance(message, WindowExpired):
            await self._on_window_expired(message.key)
        elif isinstance(message, HeldCloseDue):
            await self._on_held_close_due(message.key)
        elif isinstance(message, GraceExpired):
            await self._on_grace_expired(message)
        elif isinstance(message, ReleaseDue):
            self._delayed.release()
        elif isinstance(message, ClockDue):
            await self._on_clock_due()
        elif isinstance(message, ListingDue) and self._listing_stale:
            await self._refresh_listing()  # a crowd's joins and leaves, at once

    def _after_failure(self, message: InboxMessage) -> None:
        if isinstance(message, Submit) and message.seat is not None:
            COMMAND_OUTCOMES.rejected(ProtocolReason.INTERNAL_ERROR)
            self._answer(message, codec.encode(Rejected(
                message.command.id, ProtocolReason.INTERNAL_ERROR,
                "the server failed; the command was not applied")))
        elif isinstance(message, Join) and not message.done.done():
            message.done.set_exception(RuntimeError("join failed"))
        elif isinstance(message, AskHistory):
            message.member.deliver(codec.encode(Rejected(
                message.request.id, ProtocolReason.INTERNAL_ERROR,
                "the server failed to read the history")))

    def _after_storage_failure(self, message: InboxMessage) -> None:
        """Nothing was stored, so nothing changed: say "try again" (not remembered under the
        command's id, so the same id may be sent again), or retry a deadline later."""
        if isinstance(message, Submit) and message.seat is not None:
            COMMAND_OUTCOMES.rejected(ProtocolReason.STORAGE_UNAVAILABLE)
            message.member.deliver(codec.encode(Rejected(
                message.command.id, ProtocolReason.STORAGE_UNAVAILABLE, TRY_AGAIN)))
        elif isinstance(message, Join) and not message.done.done():
            message.done.set_exception(RoomStopped(f"{self.room_id}: storage unavailable"))
        elif isinstance(message, (WindowExpired, HeldCloseDue, ClockDue)):
            asyncio.get_running_loop().call_later(STORAGE_RETRY_S, self.inbox.post, message)
        elif isinstance(message, AskHistory):
            message.member.deliver(codec.encode(Rejected(
                message.request.id, ProtocolReason.STORAGE_UNAVAILABLE, TRY_AGAIN)))

    # --- commands -----------------------------------------------------------------------

    async def _on_submit(self, message: Submit) -> None:
        command = message.command
        if message.seat is None:
            COMMAND_OUTCOMES.rejected(ProtocolReason.SPECTATOR_READ_ONLY)
            message.member.deliver(codec.encode(Rejected(
                command.id, ProtocolReason.SPECTATOR_READ_ONLY, "spectators cannot send commands")))
            return
        cached = self._seats[message.seat].answers.get(command.id)
        if cached is not None:
            COMMAND_OUTCOMES.repeated.inc()
            message.member.deliver(cached)
            return
        # The deadline is the server's: a declaration processed after it is too late, even
        # if the timer's own inbox message has not been handled yet.
        if self._window is not None and self._clock() >= self._window_deadline_ms:
            await self._on_window_expired(self._window.key)
        if self._window is not None and self._hold.waiting:  # (likewise: a held close due)
            await self._on_held_close_due(self._window.key)
        if self._chess_clock.due():  # (likewise: a clock ran out before this command)
            await self._on_clock_due()
        answer, told = await self._decide(message, message.seat)
        self._answer(message, answer, told=told)

    async def _decide(self, message: Submit, seat: str) -> tuple[bytes, bool]:
        """The command's answer (encoded), and whether the commander has it already (an
        accepted command's ``events`` frame names it for its commander)."""
        command = message.command
        # A rejection, or an acceptance that changes nothing spectators see, is the seat's
        # own: not counted (server/metrics.py, "A seat's private actions").
        self._command_counted = False
        rejected = self._reject_version(command, Audience(seat))
        if rejected is not None:
            return codec.encode(rejected), False
        try:
            parsed = self._engine.parse_command(command.body)
        except CommandFormatError as error:
            return codec.encode(Rejected(command.id, BAD_COMMAND, str(error))), False
        verdict = self._decide_now(seat, parsed)
        if verdict.events is None:
            return codec.encode(Rejected(command.id, verdict.code, verdict.message)), False
        if self._held_close(command):  # accepted now, takes effect later (``window_hold``)
            await self._store_held_close()
            return codec.encode(Accepted(command.id, self.seen[Audience(seat)])), False
        if not verdict.events:  # accepted, and nothing changed: nothing to store
            return codec.encode(Accepted(command.id, self.seen[Audience(seat)])), False
        answering = self._answering(message, seat)
        answer = await self._commit(verdict, answering, accepts=(seat, command.id))
        assert answer is not None  # (there were events)
        if self._command_counted:  # (spectators see some of its events: ``_commit``)
            COMMAND_OUTCOMES.accepted.inc()
        return answer, answering is not None

    def _held_close(self, command: Command) -> bool:
        """``command`` (accepted by the rules) closes the open window, which is held: its
        close must wait (``server.rooms.window_hold``)."""
        window = self._window
        return (window is not None and command.body.get("type") == CLOSE_ARO_WINDOW
                and self._hold.holds(window))

    async def _store_held_close(self) -> None:
        """Keep the held close with the room's deadlines before it is answered (a restart
        finds it); then wait for its moment. Storage unavailable: nothing waits, and the
        command is answered "try again"."""
        deadlines = (*self._open_deadlines(self._window, self._window_deadline_ms),
                     *self._hold.deadlines(self._window, waiting=True))
        await self._store.set_deadlines(self.room_id, fence=self._fence, deadlines=deadlines)
        self._hold.wait()

    def _reject_version(self, command: Command, audience: Audience) -> Rejected | None:
        """Against the seat's own numbering: what it may not know of never makes its
        command stale."""
        version = self.seen[audience]
        if command.version < version:
            return Rejected(command.id, ProtocolReason.STALE_VERSION,
                            f"issued against version {command.version}; the room is at {version}")
        if command.version > version:
            return Rejected(command.id, ProtocolReason.FUTURE_VERSION,
                            f"version {command.version} is ahead of the room ({version})")
        return None

    def _answering(self, message: Submit, seat: str) -> Answering | None:
        """Whose events frame may carry the command's acceptance: the seat's audience, whose
        one subscriber is the seat's connection, if the command came from it. A connection
        replaced since it sent the command gets its answer on its own (``_answer``)."""
        commander = self._seats[seat]
        if (commander.member is not message.member
                or not self._fanout.count(self.room_id, commander.audience)):
            return None
        return Answering(commander.audience, message.command.id)

    def _answer(self, message: Submit, frame: bytes, *, told: bool = False) -> None:
        """Remember the answer (encoded) under the command's id (a repeated id gets it
        again, as a standalone ``accepted`` or ``rejected``) and send it, unless the
        commander was ``told`` already by the events frame that names the command.

        Only the answer of a command that changed the room is stored (``_commit``), so
        only that one outlives the room's time in memory: a rejected command changed
        nothing, and sent again to the room loaded anew it is decided again."""
        if message.seat is not None:
            self._seats[message.seat].answers.put(message.command.id, frame)
        if not told:
            message.member.deliver(frame)

    async def _commit(self, verdict: Verdict, answering: Answering | None = None,
                      accepts: tuple[str, str] | None = None) -> bytes | None:
        """Store, then apply and publish an accepted ``verdict``'s events, decided on the
        room's state in this same turn of its actor; nothing changes if the store refuses.
        With ``answering``, that audience's frame names the command these events accept.
        ``accepts``: (seat, command id) of the command they accept, whose answer -- the
        standalone ``accepted`` a repeated id gets, in the seat's numbering -- is stored in
        the same append as the events and returned (None without ``accepts``, or without
        events: nothing is stored or published)."""
        events = verdict.events
        if not events:
            return None
        await self._list_late()  # (once per room load, and only in a public delayed room)
        engine = self._engine
        # The state the engine reached while deciding, when it kept it: the same fold.
        new_state = verdict.state if verdict.state is not None else engine.apply_all(
            self.state, events)
        window = engine.pending_aro_window(new_state)
        deadline_ms = self._deadline_for(window)
        deadlines = self._open_deadlines(window, deadline_ms)
        new_version = self.version + len(events)
        plains = [engine.event_to_plain(event) for event in events]
        views = audience_views(engine, new_state, events, plains)
        new_seen = counted(self.seen, views)
        summary = engine.public_summary(new_state)
        snapshot = None
        if self._snapshot_due(summary, new_version):
            snapshot = pack_room_snapshot(engine.state_to_plain(new_state), new_seen)
        answer = None
        committed_ms = self._clock()
        if accepts is not None:
            seat, command_id = accepts
            answer = Answer(seat, command_id,
                            codec.encode(Accepted(command_id, new_seen[Audience(seat)])))
        storing = time.perf_counter()
        # Spectators see some of these events: the command is counted; else its append is
        # not timed either (server/metrics.py, "A seat's private actions").
        shown = new_seen[Audience.SPECTATOR] != self.seen[Audience.SPECTATOR]
        self._command_counted = shown
        with private_write(not shown):
            await self._store.append(
                self.room_id,
                fence=self._fence,
                expected_version=self.version,
                events=[codec.pack_plain(plain) for plain in plains],
                snapshot=snapshot,
                deadlines=deadlines,
                listing=self._listing(new_state),
                answer=answer,
                answers_kept=self._settings.answer_cache_size,
                retention_ms=retention_ms(self._settings, str(summary["phase"])),
                committed_ms=committed_ms,
                window_ms=deadline_ms,
            )
        self._last_store_s = time.perf_counter() - storing
        if snapshot is not None:
            self._snapshot_version = new_version
        # State, versions and window change together, with no await between them and the
        # publish: a snapshot taken by a resyncing socket is always consistent with the next
        # frames.
        seen_before = self.seen
        self.state = new_state
        if self._views:
            self._views.clear()  # (views of the old state: never used again)
        self.version += len(events)
        self.seen = new_seen
        self._history.checkpoints.committed(self.version, new_seen)
        self._sync_window(window, deadline_ms)
        self._arm_chess_clock()
        self._fanout.publish(self.room_id, events_delivery(
            self.version, seen_before, views, self._window_fields(), self._listening, answering,
            self._clocks_fields()))
        self._delayed.committed(self.version, committed_ms, events, plains, deadline_ms)
        return None if answer is None else answer.frame

    def _listening(self, audience: Audience) -> bool:
        """Whether live frames go to ``audience``: someone of it is here, and it is not
        delayed (a delayed audience gets its frames from its feed)."""
        return self._delayed.live(audience) and self._fanout.count(self.room_id, audience) > 0

    def _snapshot_due(self, after: Plain, new_version: int) -> bool:
        """Snapshot every ``snapshot_every`` versions and at every change of phase, round or
        turn (``after``: the new state's ``public_summary``), so loading a room replays a
        bounded number of events."""
        if new_version - self._snapshot_version >= self._settings.snapshot_every:
            return True
        before = self._engine.public_summary(self.state)
        return any(before[key] != after[key] for key in ("phase", "round", "turn"))

    # --- the ARO window -----------------------------------------------------------------

    def _deadline_for(self, window: AroWindow | None) -> int:
        if window is None:
            return 0
        if self._window is not None and self._window.key == window.key:
            return self._window_deadline_ms
        if self._seats[window.reactive].status is SeatStatus.ABANDONED:
            return self._clock()  # nobody will answer: it closes on its deadline, now
        return self._clock() + int(self._window_s * 1000)

    def _sync_window(self, window: AroWindow | None, deadline_ms: int) -> None:
        """Follow the rules core's window: (re)arm or cancel the deadline's timer. Viewers
        learn of it from the ``window`` of the events frame the caller publishes next."""
        current = self._window
        if current is not None and (window is None or window.key != current.key):
            self._close_window()
        if window is not None and self._window is None:
            self._open_window(window, deadline_ms)

    def _open_window(self, window: AroWindow, deadline_ms: int | None) -> None:
        if deadline_ms is None:
            deadline_ms = self._clock() + int(self._window_s * 1000)
        self._window = window
        self._window_deadline_ms = deadline_ms
        delay = max(0.0, (deadline_ms - self._clock()) / 1000)
        self._window_timer = asyncio.get_running_loop().call_later(
            delay, self.inbox.post, WindowExpired(window.key))
        self._hold.opened(window, deadline_ms, self._held(window, deadline_ms))

    def _held(self, window: AroWindow, deadline_ms: int) -> bool:
        """Whether ``window``'s close waits for its minimum time (``window_hold``): the room
        holds windows, it is an ARO window (a Guts window follows a public roll), it runs
        its full length (not one closing at once for an abandoned seat), and by public
        facts its reactive side could hold a trooper it may react with unseen."""
        return (self._hold.enabled and window.guts is None
                and deadline_ms - self._clock() > 0
                and self._engine.may_react_unseen(self.state, window.reactive))

    def _close_window(self) -> None:
        if self._window_timer is not None:
            self._window_timer.cancel()
            self._window_timer = None
        self._window = None
        self._hold.closed()

    def _drop_window(self) -> None:
        """Close the window without an event (the rules core would not close it): tell every
        viewer with an ``events`` frame that carries no event and no window."""
        self._close_window()
        frames = {audience: codec.encode(Events(self.seen[audience] + 1, [], None,
                                                clocks=self._clocks_fields()))
                  if self._delayed.live(audience) else b"" for audience in AUDIENCES}
        self._fanout.publish(self.room_id, Delivery(
            self.version, frames[Audience.A], frames[Audience.B], frames[Audience.SPECTATOR],
            frames[Audience.CASTER]))

    def _window_fields(self) -> dict[str, Plain] | None:
        """The open ARO (or Guts) window as frames carry it (``remaining_ms`` as of now), or
        None."""
        window = self._window
        if window is None:
            return None
        return window_fields(window.order, window.step, window.reactive,
                             self._window_deadline_ms,
                             max(0, self._window_deadline_ms - self._clock()), window.guts)

    async def _on_window_expired(self, key: str) -> None:
        window = self._window
        if window is None or window.key != key:
            return  # closed early, or an older window's timer
        deadline_ms = self._window_deadline_ms
        verdict = self._decide_now(None, self._engine.close_window_command(window))
        if verdict.events is None:
            log.error("room %s: closing ARO window %s refused: %s", self.room_id, key, verdict.code)
            self._drop_window()
            return
        await self._commit(verdict)
        late_s = self._clock() / 1000 - deadline_ms / 1000
        if late_s >= 0:  # (not a window closed early: its reactive seat was abandoned)
            ARO_CLOSE_LATENESS.observe(late_s)
        if self._window is not None and self._window.key == key:
            log.error("room %s: ARO window %s still open after its close", self.room_id, key)
            self._drop_window()

    async def _on_held_close_due(self, key: str) -> None:
        """A held close's moment came: the reactive player's close takes effect now (as that
        player's command, already answered)."""
        window = self._window
        if window is None or window.key != key or not self._hold.due(key):
            return  # closed since (the deadline, an abandoned seat), or an early wake-up
        verdict = self._decide_now(window.reactive, self._engine.close_window_command(window))
        if verdict.events is None:
            log.error("room %s: held close of ARO window %s refused: %s", self.room_id, key,
                      verdict.code)
            return  # (the deadline closes it)
        await self._commit(verdict)

    # --- chess clocks (``clock_timer``; the clocks are game state) ------------------------

    def _decide_now(self, actor: str | None, command: object) -> Verdict:
        """The engine's decision, stamped with the room's clock in a room with chess clocks
        (the time runs the clocks; a room without them has no use for it)."""
        if self.meta.settings.clock_s:
            return self._engine.decide(self.state, actor, command, at_ms=self._clock())
        return self._engine.decide(self.state, actor, command)

    def _arm_chess_clock(self) -> None:
        if self.meta.settings.clock_s:
            self._chess_clock.arm(self._engine.clock_deadline(self.state))

    def _clocks_fields(self) -> dict[str, Plain] | None:
        """The chess clocks as frames carry them (``remaining_ms`` as of now), or None."""
        if not self.meta.settings.clock_s:
            return None
        fields: dict[str, Plain] | None = self._engine.clocks_fields(self.state, self._clock())
        return fields

    async def _on_clock_due(self) -> None:
        """At the running clock's deadline: the rules core records its time-out (stamped
        with the deadline itself, however late the timer), and what follows from it."""
        deadline = self._engine.clock_deadline(self.state)
        if deadline is None or self._clock() < deadline[1]:
            self._chess_clock.close()  # stale (the clock switched) or early: wait again
            self._arm_chess_clock()
            return
        side, at_ms = deadline
        verdict = self._engine.decide(self.state, None,
                                      self._engine.clock_expired_command(side, at_ms), at_ms=at_ms)
        if verdict.events is None:
            log.error("room %s: chess clock %s time-out refused: %s", self.room_id, side,
                      verdict.code)
            self._chess_clock.close()
            return
        await self._commit(verdict)

    # --- viewers ------------------------------------------------------------------------

    async def _on_join(self, join: Join) -> None:
        member = join.member
        self._idle_epoch += 1  # a pending IdleExpired is stale now
        if join.seat is not None:
            seat = self._seats[join.seat]
            previous = seat.member
            if previous is not None and previous is not member:
                self._fanout.unsubscribe(self.room_id, previous)
                previous.close(CloseCode.REPLACED, "this seat connected again elsewhere")
            seat.cancel_grace()
            seat.member = member
            seat.status = SeatStatus.CONNECTED
        else:
            await self._open_feed(member.audience)  # (raises before anything is changed)
            self._spectators.add(member)
            self._publish_spectators()
        self._fanout.subscribe(self.room_id, member)
        # Before the welcome: a client that has it sees the list (in a crowd, shortly after).
        if join.seat is None:
            await self._list_spectators()
        else:
            await self._refresh_listing()
        if join.greet:
            audience = member.audience
            member.deliver(codec.encode(Welcome(
                PROTOCOL_VERSION, self.room_id, audience.value, self._seen_by(audience),
                self._public_settings(), self._seat_statuses(), len(self._spectators),
                self.meta.dice_commitment, self.meta.settings.fixed_dice,
                self._delayed.delay_s(audience))))
            await self._catch_up(member, join.since)
        if join.seat is not None:
            self._publish_presence(self._seats[join.seat])
        join.done.set_result(None)
        if join.seat is not None:
            await self._save_presence()

    async def _on_leave(self, member: Member) -> None:
        self._fanout.unsubscribe(self.room_id, member)
        if member in self._spectators:
            self._spectators.discard(member)
            self._publish_spectators()
            self._arm_idle()
            await self._list_spectators()
            return
        for seat in self._seats.values():
            if seat.member is member:
                seat.member = None
                self._start_grace(seat, now_ms() + int(self._settings.grace_s * 1000))
                self._publish_presence(seat)
                await self._save_presence()
        self._arm_idle()

    def _start_grace(self, seat: Seat, deadline_ms: int) -> None:
        """``seat`` is away until ``deadline_ms`` (Unix ms), then abandoned."""
        seat.status = SeatStatus.AWAY
        seat.cancel_grace()
        seat.grace_deadline_ms = deadline_ms
        expiry = GraceExpired(seat.side, seat.grace_epoch)
        delay = max(0.0, (deadline_ms - now_ms()) / 1000)
        seat.grace_timer = asyncio.get_running_loop().call_later(delay, self.inbox.post, expiry)

    async def _on_grace_expired(self, message: GraceExpired) -> None:
        seat = self._seats[message.side]
        if seat.status is not SeatStatus.AWAY or seat.grace_epoch != message.epoch:
            return
        seat.grace_timer = None
        seat.grace_deadline_ms = None
        seat.status = SeatStatus.ABANDONED
        self._publish_presence(seat)
        await self._save_presence()
        window = self._window
        if window is not None and window.reactive == seat.side:
            # Windows open at every ARO step; one nobody will answer closes now.
            await self._on_window_expired(window.key)

    def _restore_presence(self) -> None:
        """Seats as the store left them (``presence_deadlines``): a room loaded after a
        restart or a takeover keeps each away seat's original grace deadline, abandoned
        seats stay abandoned, and seats connected then start their grace period now."""
        for side, at_ms in self._stored_presence.items():
            seat = self._seats.get(side)
            if seat is None:
                continue
            if at_ms == CONNECTED_AT_MS:
                self._start_grace(seat, now_ms() + int(self._settings.grace_s * 1000))
            elif at_ms == ABANDONED_AT_MS:
                seat.status = SeatStatus.ABANDONED
            else:
                self._start_grace(seat, at_ms)  # a past deadline expires at once

    def _open_deadlines(self, window: AroWindow | None,
                        window_deadline_ms: int) -> tuple[Deadline, ...]:
        """What the store keeps of the room's timers: the ARO window's deadline, if one is
        open, and the seats' presence."""
        presence = presence_deadlines(self._seats.values())
        if window is None:
            return presence
        return (Deadline(ARO_WINDOW, window.key, window_deadline_ms),
                *self._hold.deadlines(window), *presence)

    async def _save_presence(self) -> None:
        """Store the seats' presence with the open deadlines; a failure only delays it to
        the next write (presence is not game state: nothing accepted is at stake)."""
        deadlines = self._open_deadlines(self._window, self._window_deadline_ms)
        try:
            await self._store.set_deadlines(self.room_id, fence=self._fence, deadlines=deadlines)
        except StorageUnavailable as error:
            log.warning("room %s: presence not stored yet: %s", self.room_id, error)

    async def _catch_up(self, member: Member, since: int | None) -> None:
        """Send ``member`` what it missed after ``since`` (in its own numbering): one
        ``events`` frame (the events if kept, none if it missed nothing, and the window as
        it stands), else a snapshot. A delayed viewer's, from its feed (``_catch_up_late``)."""
        if not self._delayed.live(member.audience):
            await self._catch_up_late(member, since)
            return
        if (
            since is not None
            and 0 <= since <= self.seen[member.audience]
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
        audience = member.audience
        missed = self.seen[audience] - since
        view: list[Plain] = []
        if missed:
            payloads = await self._store.events_since(self.room_id, since)
            if payloads is None or len(payloads) != self.version - since:
                return False
            plains = [codec.unpack_plain(p) for p in payloads]
            events = [self._engine.event_from_plain(plain) for plain in plains]
            view = views_for(self._engine, self.state, events, plains, audience)[-missed:]
            if len(view) != missed:
                return False
        member.deliver(codec.encode(Events(since + 1, view, self._window_fields(),
                                           clocks=self._clocks_fields())))
        return True

    async def _on_history(self, message: AskHistory) -> None:
        """A page of the viewer's own events from its ``from`` on (``history``), up to its
        version now; none when ``from`` is past it."""
        request, member = message.request, message.member
        if request.from_ < 1:
            member.deliver(codec.encode(Rejected(request.id, ProtocolReason.BAD_MESSAGE,
                                                 "history: 'from' must be at least 1")))
            return
        audience = member.audience
        if not self._delayed.live(audience):
            self._delayed.release()
        state = self._state_seen_by(audience)  # (a delayed viewer's: its feed's point)
        last = self._seen_by(audience)
        events: list[Plain] = []
        if request.from_ <= last:
            events = await self._history.page(state, audience, request.from_,
                                              self.version, last)
        member.deliver(codec.encode(History(request.id, request.from_, events, last)))

    def options_frame(self, audience: Audience) -> bytes:
        """The seat's legal choices now (empty for spectators); callable from outside the
        task (it only reads the state, and keeps the frame), like ``snapshot_frame``.

        Computing them costs milliseconds (every skill, target and Line of Fire is tried)
        and clients ask again at every version, so the frame is made once per version and
        audience and handed to every later request until the room moves on."""
        if not self._delayed.live(audience):
            return codec.encode(Options(self._seen_by(audience), {}))
        cached = self._options.get(audience)
        if cached is not None and cached[0] == self.version:
            return cached[1]
        choices = {} if audience is Audience.SPECTATOR else self._engine.seat_options(
            self.state, audience.value)
        frame = codec.encode(Options(self.seen[audience], choices))
        self._options[audience] = (self.version, frame)
        return frame

    def snapshot_frame(self, audience: Audience) -> bytes:
        """The viewer's full view now (a delayed viewer's: at its delayed point); callable
        from outside the task (it only reads)."""
        if not self._delayed.live(audience):
            return self._feed(audience).snapshot_frame(self._seat_statuses(), self._clock())
        seat = audience is Audience.A or audience is Audience.B
        snapshot = Snapshot(
            self.seen[audience],
            self._engine.view_state(self.state, audience.value) if seat else {},
            self._window_fields(), self._seat_statuses(), self._clocks_fields())
        if seat:
            return codec.encode(snapshot)
        return codec.encode_with_packed(snapshot, state=self._packed_view(audience))

    def _packed_view(self, audience: Audience) -> bytes:
        """The state as a crowd's ``audience`` sees it, encoded once per state: a crowd
        joining at one version (10,000 spectators in 30 s, docs/performance.md) shares it
        (a seat's audience has one connection, which asks for a snapshot when it joins or
        falls behind: its view is made each time, not kept, as a view of a whole table is
        kilobytes, on every room). The window's remaining time and the seats' statuses
        change between snapshots; they are not in it. A state is never changed in place
        (each commit makes a new one, and drops the views of the old)."""
        cached = self._views.get(audience)
        if cached is not None and cached[0] is self.state:
            return cached[1]
        packed = codec.pack_plain(self._engine.view_state(self.state, audience.value))
        self._views[audience] = (self.state, packed)
        return packed

    # --- delayed viewers (``delayed_viewers``, ``spectator_delay``) ----------------------

    async def _open_feed(self, audience: Audience) -> None:
        """Load the feed of a delayed ``audience`` before its first viewer joins."""
        if not self._delayed.live(audience):
            await self._delayed.open(audience, state=self.state, version=self.version,
                                     seen=self.seen[audience])

    def _feed(self, audience: Audience) -> DelayedFeed:
        """The feed of a delayed audience. Its viewers join only once it is loaded and it is
        kept until the room stops, so it is always there; if it were not, nothing live may
        stand in for it."""
        feed = self._delayed.feed(audience)
        if feed is None:
            raise RuntimeError(f"room {self.room_id}: no feed for delayed {audience}")
        return feed

    def _state_seen_by(self, audience: Audience) -> State:
        """The game state as ``audience`` may know it: live, or its feed's delayed point."""
        return self.state if self._delayed.live(audience) else self._feed(audience).state

    def _seen_by(self, audience: Audience) -> int:
        """The audience's version as it may know it: a delayed one's, at its feed's point."""
        if self._delayed.live(audience):
            return self.seen[audience]
        feed = self._delayed.feed(audience)
        return 0 if feed is None else feed.seen

    async def _catch_up_late(self, member: Member, since: int | None) -> None:
        """``_catch_up`` for a delayed viewer: what it missed up to its feed's point, never
        past it (the events if kept, with the window as it stood then), else the feed's
        snapshot."""
        feed = self._feed(member.audience)
        now = self._clock()
        if since is not None and 0 <= since <= feed.seen:
            view: list[Plain] | None = []
            if since < feed.seen:
                payloads = await self._store.events_since(self.room_id, since)
                view = None if payloads is None else feed.missed(payloads, since)
            if view is not None:
                member.deliver(codec.encode(Events(since + 1, view, feed.window(now),
                                                   clocks=feed.clocks(now))))
                return
        member.deliver(feed.snapshot_frame(self._seat_statuses(), now))

    # --- helpers ------------------------------------------------------------------------

    def _publish_presence(self, seat: Seat) -> None:
        frame = codec.encode(Presence(seat.side, seat.status.value, seat.grace_deadline_ms))
        self._fanout.publish(self.room_id, Delivery.same(self.version, frame))

    def _publish_spectators(self) -> None:
        self._spectator_count.changed()  # coalesced: a frame a second at most (less to a crowd)

    def _send_spectator_count(self) -> None:
        # Counts this node's spectators of the room.
        frame = codec.encode(Spectators(len(self._spectators)))
        self._fanout.publish(self.room_id, Delivery.same(self.version, frame))

    def _seat_statuses(self) -> dict[str, str]:
        return {side: seat.status.value for side, seat in self._seats.items()}

    def _public_settings(self) -> dict[str, object]:
        """The room's settings as every welcome shows them: made once (the meta is set when
        the room opens and never changes; a crowd's joins share the dict, which is only
        encoded)."""
        if self._public is None:
            self._public = self._settings_shown()
        return self._public

    def _settings_shown(self) -> dict[str, object]:
        settings = self.meta.settings
        return {"ruleset": settings.ruleset, "aro_window_s": settings.aro_window_s,
                "visibility": settings.visibility, "spectator_delay_s": settings.spectator_delay_s,
                "clock_s": settings.clock_s, "aro_min_open_s": settings.aro_min_open_s,
                "table": self._engine.table_summary(settings.ruleset, settings.table)}

    def _listing(self, state: State) -> Listing | None:
        if self.meta.settings.visibility != "public":
            return None
        if not self._delayed.live(Audience.SPECTATOR):
            # The lobby list is open to anyone: it shows the game no sooner than delayed
            # spectators see it (``_list_late``), never the live phase, round or turn.
            feed = self._delayed.feed(Audience.SPECTATOR)
            if feed is None:
                return None  # (its feed failed to load: off the list until it does)
            state = feed.state
        summary = self._engine.public_summary(state)
        taken = sum(seat.status is not SeatStatus.EMPTY for seat in self._seats.values())
        return Listing(self.room_id, self.meta.settings.ruleset, str(summary["phase"]),
                       int(summary["round"]), int(summary["turn"]), summary.get("active"),
                       len(self._spectators), taken, now_ms(), self.meta.settings.fixed_dice)

    async def _list_late(self) -> None:
        """A public room whose spectators are delayed lists the game as they see it, so
        its spectators' feed is loaded before its listing is written."""
        if (self.meta.settings.visibility == "public"
                and not self._delayed.live(Audience.SPECTATOR)
                and self._delayed.feed(Audience.SPECTATOR) is None):
            await self._open_feed(Audience.SPECTATOR)

    async def _list_spectators(self) -> None:
        """A spectator came or went: the listing's count, now if it came alone; a crowd's
        (or while more messages wait) at most once a second, by a ``ListingDue``
        (``ListingPace``): a store round trip per join would hold every later message of the
        room, a seat's command too (docs/performance.md, "Broadcast")."""
        self._listing_stale = True
        if self._listing_pace.write_now(busy=bool(len(self.inbox))):
            await self._refresh_listing()

    async def _refresh_listing(self) -> None:
        """Best effort: the lobby's counts are not worth refusing a viewer over."""
        self._listing_stale = False
        self._listing_pace.written()
        try:
            await self._list_late()
        except StorageUnavailable as error:
            log.warning("room %s: listing not updated: %s", self.room_id, error)
            return
        listing = self._listing(self.state)
        if listing is not None:
            try:
                await self._store.set_listing(self.room_id, listing)
            except StorageUnavailable as error:
                log.warning("room %s: listing not updated: %s", self.room_id, error)

    # --- leaving memory when nobody is connected -----------------------------------------

    def _empty(self) -> bool:
        return not self._spectators and all(s.member is None for s in self._seats.values())

    def _arm_idle(self) -> None:
        """Start the idle countdown if nobody is connected (a join makes it stale)."""
        if not self._empty():
            return
        self._idle_epoch += 1
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        self._idle_timer = asyncio.get_running_loop().call_later(
            self._settings.idle_room_s, self.inbox.post, IdleExpired(self._idle_epoch))

    def _idle_now(self, message: IdleExpired) -> bool:
        """Whether the room may stop now: still nobody since the countdown began, nothing
        waiting in the inbox, and no ARO window whose deadline this process must serve
        (the countdown starts again instead)."""
        if message.epoch != self._idle_epoch or not self._empty() or len(self.inbox):
            return False
        if self._window is not None:
            self._arm_idle()
            return False
        return True

    def _shut(self, code: int, reason: str) -> None:
        self.stopped = True
        self._delayed.close()
        self._chess_clock.close()
        self._spectator_count.close()
        self._listing_pace.close()
        if self._window_timer is not None:
            self._window_timer.cancel()
        self._hold.closed()
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        members = [seat.member for seat in self._seats.values() if seat.member is not None]
        for seat in self._seats.values():
            seat.cancel_grace()
        for member in [*members, *self._spectators]:
            self._fanout.unsubscribe(self.room_id, member)
            member.close(code, reason)
        for message in self.inbox.drain():
            if isinstance(message, Submit) and message.hold is not None:
                message.hold.release()
            if isinstance(message, Join) and not message.done.done():
                message.done.set_exception(RoomStopped(self.room_id))
