"""What a room publishes to the lobby: its listing.

A public room is listed (``Listing``: ruleset, phase, round, turn, active side, spectator
count, seats taken); a private one is not. The listing is written with every commit's
append (``of``, for the state the commit reaches) and when viewers come or go
(``refresh`` when a seat joins, ``spectators_changed``). The lobby's list is open to anyone, so a room
whose spectators are delayed lists the game no sooner than they see it: from their feed,
loaded before the listing is first written (``feed_loaded``), never the live phase, round
or turn. A crowd's joins and leaves are written together, at most once a second
(``ListingPace``): a store round trip per join would hold every later message of the
room, a seat's command too (docs/performance.md, "Broadcast").

A seat's join writes the listing before its welcome (``seat_joined``) unless the store
holds it already: the room remembers the listing it last wrote (with ``refresh`` or a
commit's append; none known after a load or a write that failed), and a join that changes
nothing in it but its timestamp -- a seat coming back (away, or connected elsewhere, was
already "taken"), a count of spectators a ``ListingDue`` writes shortly -- writes nothing:
the client that has its welcome is listed already. The second seat of a room reloaded
after a restart is the common case: the first one's join wrote the listing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from server.fanout import Audience
from server.rooms.delayed_viewers import DelayedAudiences
from server.rooms.engine_port import Engine, State
from server.rooms.listing_pace import ListingPace
from server.rooms.live_game import LiveGame
from server.rooms.presence import Presence
from server.rooms.spectator_delay import Clock
from server.store import Listing, RoomMeta, RoomStore, StorageUnavailable

log = logging.getLogger("server.rooms.room")  # (the room's task's lines, as before the split)


class LobbyListing:
    __slots__ = (
        "_busy", "_delayed", "_engine", "_game", "_listed", "_meta", "_presence", "_store",
        "_unix_ms", "pace", "stale"
    )

    def __init__(self, game: LiveGame, meta: RoomMeta, engine: Engine, store: RoomStore,
                 delayed: DelayedAudiences, presence: Presence, post_due: Callable[[], None],
                 busy: Callable[[], bool], unix_ms: Clock) -> None:
        """``post_due``: posts a ``ListingDue`` to the room's inbox; ``busy``: more messages
        wait in it; ``unix_ms``: the wall clock the listing is stamped with."""
        self._game = game
        self._meta = meta
        self._engine = engine
        self._store = store
        self._delayed = delayed
        self._presence = presence
        self._busy = busy
        self._unix_ms = unix_ms
        self.pace = ListingPace(post_due)
        self.stale = False
        """A spectator's join or leave is not listed yet (a ``ListingDue`` writes it)."""
        self._listed: Listing | None = None
        """The listing the store holds as this room last wrote it (None: none or unknown)."""

    def of(self, state: State) -> Listing | None:
        """The listing of the room with the live game at ``state`` (None: not listed)."""
        settings = self._meta.settings
        if settings.visibility != "public":
            return None
        if not self._delayed.live(Audience.SPECTATOR):
            # The lobby list is open to anyone: it shows the game no sooner than delayed
            # spectators see it (``feed_loaded``), never the live phase, round or turn.
            feed = self._delayed.feed(Audience.SPECTATOR)
            if feed is None:
                return None  # (its feed failed to load: off the list until it does)
            state = feed.state
        summary = self._engine.public_summary(state)
        presence = self._presence
        return Listing(self._game.room_id, settings.ruleset, str(summary["phase"]),
                       int(summary["round"]), int(summary["turn"]), summary.get("active"),
                       len(presence.spectators), presence.taken(), self._unix_ms(),
                       settings.fixed_dice)

    async def feed_loaded(self) -> None:
        """A public room whose spectators are delayed lists the game as they see it, so
        its spectators' feed is loaded before its listing is written."""
        if (self._meta.settings.visibility == "public"
                and not self._delayed.live(Audience.SPECTATOR)
                and self._delayed.feed(Audience.SPECTATOR) is None):
            await self._delayed.ready(Audience.SPECTATOR, self._game)

    async def spectators_changed(self) -> None:
        """A spectator came or went: the listing's count, now if it came alone; a crowd's
        (or while more messages wait) at most once a second, by a ``ListingDue``
        (``ListingPace``)."""
        self.stale = True
        if self.pace.write_now(busy=self._busy()):
            await self.refresh()

    async def seat_joined(self) -> None:
        """A seat joined: write the listing, unless all it would change is its timestamp
        and the spectator count a ``ListingDue`` writes (``stale``)."""
        listed = self._listed
        listing = self.of(self._game.state) if listed is not None else None
        if listed is not None and listing is not None:
            spectators = listing.spectators if self.stale else listed.spectators
            if listing == replace(listed, updated_ms=listing.updated_ms, spectators=spectators):
                return
        await self.refresh()

    def writing(self) -> None:
        """The room is writing its listing (with a commit's append): until ``written``,
        what the store holds is unknown."""
        self._listed = None

    def written(self, listing: Listing | None) -> None:
        """The store holds ``listing`` now (None: no listing)."""
        self._listed = listing

    async def refresh(self) -> None:
        """Write the listing as it stands. Best effort: the lobby's counts are not worth
        refusing a viewer over."""
        self.stale = False
        self.pace.written()
        room_id = self._game.room_id
        try:
            await self.feed_loaded()
        except StorageUnavailable as error:
            log.warning("room %s: listing not updated: %s", room_id, error)
            return
        listing = self.of(self._game.state)
        if listing is not None:
            self.writing()
            try:
                await self._store.set_listing(room_id, listing)
            except StorageUnavailable as error:
                log.warning("room %s: listing not updated: %s", room_id, error)
            else:
                self.written(listing)

    def close(self) -> None:
        """The room stopped: nothing more is posted."""
        self.pace.close()
