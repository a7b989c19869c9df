"""Tournaments (issue 21, docs/tournaments.md): an append-only log of actions per
tournament, its state the fold of that log; Swiss pairing and standings as pure functions;
rooms created per table through the lobby's own room creation; results read from the games."""
