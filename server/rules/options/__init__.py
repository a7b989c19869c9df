"""What a seat may do now: the legal choices a client offers its player.

``seat_options(state, side)`` answers by asking the rules core itself: every candidate
command is put through the same validation ``engine.decide`` uses (the command handlers,
without the automatic follow-ups), and only the accepted ones are listed. So the client
never duplicates a rule, and a choice it offers is one the server accepts (movement routes
aside: a route's legality depends on the points the player draws; the skills that take a
route are offered when the Order's structure allows them and the trooper may move at all
(it has a MOV value, it is not Engaged), and the route is judged on declaration).

The answer is the seat's own information plus open information: sight lines are listed
only towards troopers the seat can see on the table (never towards Hidden Deployment).

The package: ``seat`` answers for the whole seat (``seat_options``), ``active_skills`` for
the active trooper's next declaration, ``aros`` for the open ARO window; ``accepted`` is
how each is asked.
"""

from __future__ import annotations

from .seat import seat_options

__all__ = ["seat_options"]
