"""A viewer's join and leave, and a seat's grace period running out, step by step.

The room's collaborators each own a part of a viewer's arrival -- who is connected
(``presence``), what the lobby lists (``listing``), what the viewer is sent (``catch_up``)
-- and the order of their steps is what a client relies on, so it is written once, here:

- a join registers the viewer (a seat's earlier connection is replaced; a delayed
  viewer's feed is loaded first, and if that fails nothing has changed), subscribes it to
  the room's frames, writes the lobby listing *before* the welcome (a client that has its
  welcome sees itself listed; a crowd's joins are listed together, shortly after; a seat
  whose join changes nothing the store lists, e.g. one coming back, writes nothing), sends
  the welcome and the catch-up, then tells everyone of the seat's presence, answers the
  join, and only then stores the seats' presence (with the next message when more wait:
  both seats back together are stored once; nothing when the store holds it already);
- a leave unsubscribes the viewer first; a seat's connection leaves it away (told to
  everyone, stored); nobody left starts the idle countdown;
- a seat's grace period running out leaves it abandoned (told, stored), and closes the ARO
  window that waited for it, as its deadline would.

Storing the seats' presence is best effort (``stored_deadlines``).
"""

from __future__ import annotations

from server.fanout import Fanout
from server.rooms.aro_window import WindowDeadline
from server.rooms.catch_up import CatchUp
from server.rooms.delayed_viewers import DelayedAudiences
from server.rooms.listing import LobbyListing
from server.rooms.live_game import LiveGame
from server.rooms.messages import GraceExpired, Join
from server.rooms.presence import Presence
from server.rooms.seats import Member
from server.rooms.stored_deadlines import StoredDeadlines


class Joins:
    __slots__ = (
        "_catch_up", "_delayed", "_fanout", "_game", "_listing", "_presence", "_room_id", "_stored",
        "_window"
    )

    def __init__(self, game: LiveGame, fanout: Fanout, presence: Presence,
                 delayed: DelayedAudiences, listing: LobbyListing, catch_up: CatchUp,
                 window: WindowDeadline, stored: StoredDeadlines) -> None:
        self._game = game
        self._room_id = game.room_id
        self._fanout = fanout
        self._presence = presence
        self._delayed = delayed
        self._listing = listing
        self._catch_up = catch_up
        self._window = window
        self._stored = stored

    async def join(self, join: Join) -> None:
        member, presence = join.member, self._presence
        presence.joining()  # a pending IdleExpired is stale now
        if join.seat is not None:
            presence.seat_joined(join.seat, member)
            # To the others only (the member is not subscribed yet): its own welcome says
            # the seat is connected. (A restart's returning seats sent each a frame it knew.)
            presence.publish(presence.seats[join.seat])
        else:
            await self._delayed.ready(member.audience, self._game)  # (raises before any change)
            presence.spectator_joined(member)
        self._fanout.subscribe(self._room_id, member)
        # Before the welcome: a client that has it sees the list (in a crowd, shortly after).
        if join.seat is None:
            await self._listing.spectators_changed()
        else:
            await self._listing.seat_joined()
        if join.greet:
            await self._catch_up.greet(member, join.since)
        join.done.set_result(None)
        if join.seat is not None:
            await self._stored.joined()

    async def leave(self, member: Member) -> None:
        self._fanout.unsubscribe(self._room_id, member)
        if self._presence.spectator_left(member):
            self._presence.arm_idle()
            await self._listing.spectators_changed()
            return
        for seat in self._presence.seats_of(member):
            self._presence.went_away(seat)
            await self._stored.save()
        self._presence.arm_idle()

    async def grace_expired(self, message: GraceExpired) -> None:
        seat = self._presence.grace_expired(message)
        if seat is None:
            return
        await self._stored.save()
        window = self._window.window
        if window is not None and window.reactive == seat.side:
            # Windows open at every ARO step; one nobody will answer closes now.
            await self._window.expired(window.key)
