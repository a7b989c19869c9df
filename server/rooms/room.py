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

The room keeps its actor loop, its doors and the command path; the rest is owned by its
collaborators (docs/server.md lists them): the open ARO window and its deadline
(``aro_window``), who is connected (``presence``) and the order of a join (``joins``), what
a joining or resuming viewer is sent (``catch_up``), the lobby listing (``listing``), a
command's answer (``answers``), the stored timers (``stored_deadlines``). None of them, nor
the room, encodes a frame: ``frames`` does (``event_frames`` a commit's events).
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Sequence

from protocol.constants import CloseCode, ProtocolReason
from protocol.messages import Command, HistoryRequest, Measure
from server.config import Settings
from server.fanout import Audience, Fanout
from server.fanout.slices import loop_slices
from server.log_format import current_room
from server.metrics import COMMAND_LATENCY, COMMAND_OUTCOMES, private_write
from server.rooms import frames
from server.rooms.answers import CommandAnswers
from server.rooms.aro_window import WindowDeadline
from server.rooms.catch_up import CatchUp
from server.rooms.clock_timer import ClockTimer
from server.rooms.delayed_viewers import DelayedAudiences
from server.rooms.engine_port import AroWindow, CommandFormatError, Engine, State, Verdict
from server.rooms.inbox import RoomInbox
from server.rooms.joins import Joins
from server.rooms.listing import LobbyListing
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
    OutageDue,
    PresenceDue,
    ReleaseDue,
    Resync,
    Stop,
    Submit,
    WindowExpired,
)
from server.rooms.numbering import NONE_SEEN, Seen, audience_views, counted
from server.rooms.options import SeatOptions
from server.rooms.presence import Presence
from server.rooms.retention import retention_ms, retention_of
from server.rooms.seats import Member, role_seat
from server.rooms.slow_commands import SLOW_COMMANDS
from server.rooms.snapshot_policy import SnapshotPolicy
from server.rooms.spectator_delay import Clock
from server.rooms.store_outage import StoreOutage
from server.rooms.stored_deadlines import StoredDeadlines
from server.store import Answer, Deadline, RoomMeta, RoomStore, StaleWriter, StorageUnavailable
from server.store.interface import TRY_AGAIN

log = logging.getLogger(__name__)

BAD_COMMAND = "bad_command"  # the rules core's Reason.BAD_COMMAND
STORAGE_RETRY_S = 0.5
"""How soon a deadline whose write found the store unavailable is tried again."""
FAILED_DEADLINE_RETRY_MAX_S = 30.0
"""The longest wait before a deadline that failed for an unforeseen reason is tried again
(its waits double from ``STORAGE_RETRY_S``)."""
DEADLINES = (WindowExpired, HeldCloseDue, ClockDue, OutageDue)
"""The messages that make a deadline take effect: each must, sooner or later."""


class RoomStopped(Exception):
    """The room stopped before it could take the request."""


class RoomMoved(RoomStopped):
    """The room changed owner while a viewer was joining: open it again and retry."""


def now_ms() -> int:
    return int(time.time() * 1000)


class Room:
    def __init__(self, meta: RoomMeta, *, state: State, version: int, fence: int,
                 deadlines: Sequence[Deadline], engine: Engine, store: RoomStore, fanout: Fanout,
                 settings: Settings, snapshot_version: int = 0, seen: Seen = NONE_SEEN,
                 answers: Sequence[Answer] = (), clock: Clock = now_ms,
                 armies_stored: object | None = None, loaded: bool = False,
                 unattended_since_ms: int | None = None) -> None:
        """``snapshot_version``: the version of the store's latest snapshot of this room;
        ``loaded``: the room was read back from the store (a restart, a takeover, a room
        that had left memory), so its viewers may be coming back all at once;
        ``armies_stored``: ``Engine.armies_of`` that snapshot's state when the store keeps
        its army lists apart (``SnapshotPolicy``);
        ``seen``: each audience's own count of events at ``version`` (``numbering``);
        ``answers``: the stored answers to the seats' latest commands, oldest first;
        ``unattended_since_ms``: loaded after no server ran it since that room time (its
        previous server died, or shut down and was waited for: ``ownership.Claimed``), a
        span given back first, as a store outage's is (``server.rooms.store_outage``);
        ``clock``: Unix ms now, for commit times, deadlines and delayed feeds (tests pass a
        fake; grace periods and the lobby listing run on the wall clock, ``now_ms``)."""
        self.meta = meta
        self.room_id = meta.room_id
        self.state = state
        self.version = version
        """The global version: every stored event. Viewers never see it (``seen``)."""
        self.seen: dict[Audience, int] = dict(seen)
        self.inbox: RoomInbox[InboxMessage] = RoomInbox(settings.inbox_size)
        self.stopped = False
        self._stopped_for_joins: type[RoomStopped] = RoomStopped
        self.left_idle = False  # stopped because nobody was connected (its lease may go now)
        self._fence = fence
        self._snapshots = SnapshotPolicy(engine, settings.snapshot_every, snapshot_version,
                                         armies_stored, apart=settings.snapshot_armies_apart)
        self._engine = engine
        self._store = store
        self._fanout = fanout
        self._settings = settings
        self._clock = clock
        self._last_store_s = 0.0  # how long the last append took (a slow command's log)
        # Whether the command being handled is counted in the metrics: not when its outcome
        # is its seat's own (server/metrics.py, "A seat's private actions").
        self._command_counted = True
        self._deadline_failures = 0  # unforeseen failures of deadlines in a row
        self._outage = StoreOutage(clock)
        self._unattended_ms = 0
        """How long no server ran the room before this load (its away seats' grace
        deadlines move on by it: ``Presence.restore``)."""
        if unattended_since_ms is not None and self._outage.unattended(unattended_since_ms):
            self._unattended_ms = clock() - unattended_since_ms
            self.inbox.post(OutageDue())  # (the room's first message: before any command)
        self._around_hold: tuple[Seen, Seen] | None = None
        """The numbering just before and after the clocks' last hold (``_reject_version``)."""
        # The parts reach back to the room through ``me``, a weak proxy, and to its inbox
        # directly: a part holding the room itself (or a bound method or a lambda of it)
        # would be a reference cycle, which only a collection frees, and one that a node's
        # freeze (``server.node.crowd_gc``, ``server.cluster.warm_up``) has put out of the
        # collector's reach is never freed: every room alive at a freeze stayed in memory
        # for good once it left (tests/rooms/test_room_cycles.py). Whoever holds the room
        # (the registry, its task, its viewers' sessions) keeps it, and so its parts, alive.
        me = weakref.proxy(self)
        inbox = self.inbox
        post = inbox.post
        self._presence = Presence(self.room_id, settings, fanout, lambda: me.version, post,
                                  deadlines, now_ms, returning=loaded)
        self._answers = CommandAnswers(self.room_id, settings.answer_cache_size, answers,
                                       self._presence, fanout)
        self._delayed = DelayedAudiences(self.room_id, meta.settings, engine, store, fanout,
                                         clock, post)
        self._chess_clock = ClockTimer(self.room_id, clock, post, engine,
                                       bool(meta.settings.clock_s),
                                       lambda *commit: me._commit(*commit))
        self._aro = WindowDeadline(self.room_id, meta.settings, engine, clock, post, deadlines,
                                   self._presence.abandoned,
                                   lambda *decide: me._decide_now(*decide),
                                   lambda *commit: me._commit(*commit),
                                   lambda *drop: me._drop_window(*drop),
                                   lambda *again: me._window_runs_again(*again))
        self._catch_up = CatchUp(me, meta, engine, store, self._delayed, self._aro,
                                 self._chess_clock, self._presence, clock)
        self._listing = LobbyListing(me, meta, engine, store, self._delayed, self._presence,
                                     lambda: inbox.post_crowd(ListingDue()),
                                     lambda: bool(len(inbox)), now_ms)
        self._options = SeatOptions(me, engine, self._delayed)
        self._deadlines = StoredDeadlines(
            self.room_id, store, fence, self._aro, self._presence, deadlines,
            renews=lambda: retention_of(settings, engine, me.state) != 0,
            post_due=lambda: post(PresenceDue()), busy=lambda: bool(len(inbox)))
        self._joins = Joins(me, fanout, self._presence, self._delayed, self._listing,
                            self._catch_up, self._aro, self._deadlines)

    # --- the doors into the inbox (called by the transport) -----------------------------

    async def join(self, member: Member, seat: str | None, since: int | None,
                   greet: bool = True) -> None:
        """Register ``member`` and send it the welcome and its catch-up (unless ``greet`` is
        False: a relayed spectator its node greeted from a crowd kit); raises if the room
        stopped first."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self.stopped:
            raise self._stopped_for_joins(self.room_id)
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
        state = self._delayed.state_seen_by(member.audience, self)
        member.deliver(measurement_frame(self._engine, state, member.audience, request))

    def overflow_frame(self, member: Member) -> bytes:
        return self.snapshot_frame(member.audience)

    def snapshot_frame(self, audience: Audience) -> bytes:
        """The viewer's full view now (a delayed viewer's: at its delayed point); callable
        from outside the task (it only reads)."""
        return self._catch_up.snapshot_frame(audience)

    def options_frame(self, audience: Audience) -> bytes:
        """The seat's legal choices now (empty for spectators), made once per version
        (``options``); callable from outside the task, like ``snapshot_frame``."""
        return self._options.frame(audience)

    @property
    def fence(self) -> int:
        """The fencing token this room writes with (renewed with its lease)."""
        return self._fence

    # --- the actor loop -----------------------------------------------------------------

    async def run(self) -> None:
        """Handle inbox messages until ``Stop``; one failing message never stops the room."""
        current_room.set(self.room_id)  # every log line of this task names the room
        self._aro.restore(self.state)
        self._chess_clock.arm_for(self.state)  # (the stored state: a restarted room's same)
        if self._presence.restore(self._unattended_ms):
            self._deadlines.moved()
        self._presence.arm_idle()
        while True:
            message = await self.inbox.get()
            if isinstance(message, Stop):
                await self._deadlines.stopping()  # (a join's presence, if still unstored)
                self._shut(message.close_code, message.reason)
                return
            if isinstance(message, IdleExpired):
                if self._presence.idle_now(message, busy=bool(len(self.inbox)),
                                           serving=self._aro.window is not None):
                    log.info("room %s: idle; leaving memory", self.room_id)
                    self.left_idle = True
                    self._shut(CloseCode.GOING_AWAY, "room idle")
                    return
                continue
            try:
                await self._handle(message)
                if self._deadline_failures and isinstance(message, DEADLINES):
                    self._deadline_failures = 0
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
            # Handled: not held while the room waits for the next one (a Leave's member is
            # a closed socket's session, whose objects are freed only once nothing holds it).
            del message

    async def _handle(self, message: InboxMessage) -> None:
        if self._outage.since is not None and isinstance(message, DEADLINES):
            await self._give_back_outage()  # (as ``_on_submit``)
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
            await self._joins.join(message)
        elif isinstance(message, Leave):
            await self._joins.leave(message.member)
        elif isinstance(message, Resync):
            await self._catch_up.resync(message.member, message.since)
        elif isinstance(message, AskHistory):
            await self._catch_up.history(message.member, message.request)
        elif isinstance(message, WindowExpired):
            await self._aro.expired(message.key)
        elif isinstance(message, HeldCloseDue):
            await self._aro.held_close_due(message.key)
        elif isinstance(message, GraceExpired):
            await self._joins.grace_expired(message)
        elif isinstance(message, ReleaseDue):
            self._delayed.release()
        elif isinstance(message, ClockDue):
            await self._chess_clock.expired(self.state)
        elif isinstance(message, ListingDue) and self._listing.stale:
            await self._listing.refresh()  # a crowd's joins and leaves, at once
        elif isinstance(message, PresenceDue):
            await self._deadlines.due()  # seats' joins that came together

    def _after_failure(self, message: InboxMessage) -> None:
        if isinstance(message, Submit) and message.seat is not None:
            self._answers.failed(message)
        elif isinstance(message, Join) and not message.done.done():
            message.done.set_exception(RuntimeError("join failed"))
        elif isinstance(message, DEADLINES):
            # Dropped, the deadline would never take effect (an ARO window open for good,
            # both players waiting on it): tried again, later each time, as a storage
            # failure's is; its failures are logged with their traceback meanwhile.
            retry_s = min(FAILED_DEADLINE_RETRY_MAX_S,
                          STORAGE_RETRY_S * 2 ** self._deadline_failures)
            self._deadline_failures += 1
            asyncio.get_running_loop().call_later(retry_s, self.inbox.post, message)
        elif isinstance(message, AskHistory):
            message.member.deliver(frames.rejected(
                message.request.id, ProtocolReason.INTERNAL_ERROR,
                "the server failed to read the history"))

    def _after_storage_failure(self, message: InboxMessage) -> None:
        """Nothing was stored, so nothing changed: say "try again" (not remembered under the
        command's id, so the same id may be sent again), or retry a deadline later."""
        if isinstance(message, Submit) and message.seat is not None:
            self._answers.unavailable(message)
        elif isinstance(message, Join) and not message.done.done():
            message.done.set_exception(RoomStopped(f"{self.room_id}: storage unavailable"))
        elif isinstance(message, DEADLINES):
            asyncio.get_running_loop().call_later(STORAGE_RETRY_S, self.inbox.post, message)
        elif isinstance(message, AskHistory):
            message.member.deliver(frames.rejected(
                message.request.id, ProtocolReason.STORAGE_UNAVAILABLE, TRY_AGAIN))

    # --- commands -----------------------------------------------------------------------

    async def _on_submit(self, message: Submit) -> None:
        command = message.command
        if message.seat is None:
            COMMAND_OUTCOMES.rejected(ProtocolReason.SPECTATOR_READ_ONLY)
            message.member.deliver(frames.rejected(
                command.id, ProtocolReason.SPECTATOR_READ_ONLY, "spectators cannot send commands"))
            return
        cached = self._answers.repeated(message.seat, command.id)
        if cached is not None:
            COMMAND_OUTCOMES.repeated.inc()
            message.member.deliver(cached)
            return
        if self._outage.since is not None:
            # The store refused the room's writes since: what that span took is given back
            # before anything else is decided (a deadline met meanwhile moves on with it).
            await self._give_back_outage()
        # The deadline is the server's: a declaration processed after it is too late, even
        # if the timer's own inbox message has not been handled yet.
        await self._aro.due_first()
        if self._chess_clock.due():  # (likewise: a clock ran out before this command)
            await self._chess_clock.expired(self.state)
        answer, told = await self._decide(message, message.seat)
        self._answers.answer(message, answer, told=told)

    async def _decide(self, message: Submit, seat: str) -> tuple[bytes, bool]:
        """The command's answer (encoded), and whether the commander has it already (an
        accepted command's ``events`` frame names it for its commander)."""
        command = message.command
        # A rejection, or an acceptance that changes nothing spectators see, is the seat's
        # own: not counted (server/metrics.py, "A seat's private actions").
        self._command_counted = False
        rejected = self._reject_version(command, Audience(seat))
        if rejected is not None:
            return rejected, False
        try:
            parsed = self._engine.parse_command(command.body)
        except CommandFormatError as error:
            return frames.rejected(command.id, BAD_COMMAND, str(error)), False
        verdict = self._decide_now(seat, parsed)
        if verdict.events is None:
            return frames.rejected(command.id, verdict.code, verdict.message), False
        if self._aro.holds_close(command):  # accepted now, takes effect later (``window_hold``)
            await self._deadlines.hold_close()
            return frames.accepted(command.id, self.seen[Audience(seat)]), False
        if not verdict.events:  # accepted, and nothing changed: nothing to store
            return frames.accepted(command.id, self.seen[Audience(seat)]), False
        answering = self._answers.answering(message, seat)
        answer = await self._commit(verdict, answering, accepts=(seat, command.id))
        assert answer is not None  # (there were events)
        if self._command_counted:  # (spectators see some of its events: ``_commit``)
            COMMAND_OUTCOMES.accepted.inc()
        return answer, answering is not None

    async def _give_back_outage(self) -> None:
        """Give back what the span the store refused the room's public writes took
        (``server.rooms.store_outage``): the chess clocks held for it, then the open ARO
        window's deadline moved on by it; each raises ``StorageUnavailable`` while the store
        still refuses (the span goes on; the clocks are held once). The numbering either
        side of the clocks' hold is kept (``_reject_version``)."""
        outage = self._outage
        since = outage.since
        if since is None:
            return
        now = self._clock()
        if outage.clocks_due:
            before = self.seen
            if await self._chess_clock.give_back(self.state, since, now):
                self._around_hold = (before, self.seen)
            outage.clocks_due = False
        await self._aro.lengthen(since, now)
        outage.given_back()

    def _reject_version(self, command: Command, audience: Audience) -> bytes | None:
        """Against the seat's own numbering: what it may not know of never makes its
        command stale. Nor does the clocks' hold after the store's outage, which changes
        nothing a command depends on: one issued just before it, nothing else since (the
        command the store refused, sent again under its id), is taken as issued after it."""
        version = self.seen[audience]
        if self._around_hold is not None and command.version < version:
            before, after = self._around_hold
            if command.version == before[audience] and version == after[audience]:
                return None
        if command.version < version:
            return frames.rejected(command.id, ProtocolReason.STALE_VERSION,
                                   f"issued against version {command.version}; "
                                   f"the room is at {version}")
        if command.version > version:
            return frames.rejected(command.id, ProtocolReason.FUTURE_VERSION,
                                   f"version {command.version} is ahead of the room ({version})")
        return None

    async def _commit(self, verdict: Verdict, answering: frames.Answering | None = None,
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
        await self._listing.feed_loaded()  # (once per room load; only in a public delayed room)
        engine = self._engine
        # The state the engine reached while deciding, when it kept it: the same fold.
        new_state = verdict.state if verdict.state is not None else engine.apply_all(
            self.state, events)
        window = engine.pending_aro_window(new_state)
        deadline_ms = self._aro.deadline_for(window)
        deadlines = self._deadlines.of(window, deadline_ms)
        new_version = self.version + len(events)
        plains = [engine.event_to_plain(event) for event in events]
        views = audience_views(engine, new_state, events, plains)
        new_seen = counted(self.seen, views)
        summary = engine.public_summary(new_state)
        snapshot = None
        if self._snapshots.due(self.state, summary, new_version):
            snapshot = self._snapshots.take(new_state, new_seen)
        answer = None
        committed_ms = self._clock()
        if accepts is not None:
            seat, command_id = accepts
            answer = Answer(seat, command_id,
                            frames.accepted(command_id, new_seen[Audience(seat)]))
        storing = time.perf_counter()
        # Spectators see some of these events: the command is counted; else its append is
        # not timed either (server/metrics.py, "A seat's private actions").
        shown = new_seen[Audience.SPECTATOR] != self.seen[Audience.SPECTATOR]
        self._command_counted = shown
        listing = self._listing.of(new_state)
        self._deadlines.writing()  # (what the store holds is unknown until it answers)
        self._listing.writing()
        try:
            with private_write(not shown):
                await self._store.append(
                    self.room_id,
                    fence=self._fence,
                    expected_version=self.version,
                    events=frames.stored_events(plains),
                    snapshot=None if snapshot is None else snapshot.snapshot,
                    armies=None if snapshot is None else snapshot.armies,
                    deadlines=deadlines,
                    listing=listing,
                    answer=answer,
                    answers_kept=self._settings.answer_cache_size,
                    retention_ms=retention_ms(self._settings, str(summary["phase"])),
                    committed_ms=committed_ms,
                    window_ms=deadline_ms,
                )
        except StorageUnavailable:
            self._note_store_failure(public=shown)
            raise
        self._last_store_s = time.perf_counter() - storing
        self._deadlines.written(deadlines)
        self._listing.written(listing)
        if snapshot is not None:
            self._snapshots.stored(new_version, snapshot)
        # State, versions and window change together, with no await between them and the
        # publish: a snapshot taken by a resyncing socket is always consistent with the next
        # frames.
        seen_before = self.seen
        self.state = new_state
        self.version += len(events)
        self.seen = new_seen
        self._catch_up.committed(self.version, new_seen)
        self._aro.sync(window, deadline_ms, new_state)
        self._chess_clock.arm_for(new_state)
        self._fanout.publish(self.room_id, frames.events_delivery(
            self.version, seen_before, views, self._aro.fields(), self._listening, answering,
            self._chess_clock.fields(new_state)))
        self._delayed.committed(self.version, committed_ms, events, plains, deadline_ms)
        return None if answer is None else answer.frame

    def _note_store_failure(self, public: bool) -> None:
        """The store refusing a ``public`` write (one whose events everyone sees) starts
        the span given back once it is back (``server.rooms.store_outage``), tried until
        then. A private one does not: the span's start is public, and would tell when a
        player did what only that player may know of."""
        if public and self._outage.refused():
            asyncio.get_running_loop().call_later(STORAGE_RETRY_S, self.inbox.post,
                                                  OutageDue())

    def _listening(self, audience: Audience) -> bool:
        """Whether live frames go to ``audience``: someone of it is here, and it is not
        delayed (a delayed audience gets its frames from its feed)."""
        return self._delayed.live(audience) and self._fanout.count(self.room_id, audience) > 0

    def _decide_now(self, actor: str | None, command: object) -> Verdict:
        """The engine's decision, stamped with the room's clock in a room with chess clocks
        (the time runs the clocks; a room without them has no use for it)."""
        if self._chess_clock.enabled:
            return self._engine.decide(self.state, actor, command, at_ms=self._clock())
        return self._engine.decide(self.state, actor, command)

    def _drop_window(self) -> None:
        """Close the window without an event (the rules core would not close it): tell every
        viewer with an ``events`` frame that carries no event and no window."""
        self._aro.close()
        self._fanout.publish(self.room_id, frames.window_only(
            self.version, self.seen, self._delayed.live, None,
            lambda: self._chess_clock.fields(self.state)))

    async def _window_runs_again(self, window: AroWindow, deadline_ms: int) -> None:
        """The store is back after it failed the window's close at its deadline, or took
        some of it (``WindowDeadline.lengthen``): store its new deadline (raises
        ``StorageUnavailable`` if the store still fails), then tell every viewer
        (``aro_window``, "runs again")."""
        await self._deadlines.store_window(window, deadline_ms)
        self._aro.ran_again(window, deadline_ms)
        log.info("room %s: ARO window %s runs to %d after a storage failure", self.room_id,
                 window.key, deadline_ms)
        self._fanout.publish(self.room_id, frames.window_only(
            self.version, self.seen, self._delayed.live, self._aro.fields(),
            lambda: self._chess_clock.fields(self.state)))

    # --- stopping -----------------------------------------------------------------------

    def _shut(self, code: int, reason: str) -> None:
        self.stopped = True
        # A room that moved (its lease lost) or left memory idle sends a joining viewer on:
        # the transport opens the room again (the new owner, or a fresh load) instead of
        # closing the socket; one stopped for a shutdown or a storage failure does not.
        if code == CloseCode.ROOM_UNAVAILABLE or self.left_idle:
            self._stopped_for_joins = RoomMoved
        self._delayed.close()
        self._chess_clock.close()
        self._listing.close()
        self._aro.shut()
        for member in self._presence.close():
            self._fanout.unsubscribe(self.room_id, member)
            member.close(code, reason)
        for message in self.inbox.drain():
            if isinstance(message, Submit) and message.hold is not None:
                message.hold.release()
            if isinstance(message, Join) and not message.done.done():
                message.done.set_exception(self._stopped_for_joins(self.room_id))
