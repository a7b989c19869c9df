"""Room ids and seat tokens: unguessable, and only the tokens' hashes are stored."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from server.store import RoomMeta


def new_room_id() -> str:
    """96 random bits: private rooms are reachable only by their link."""
    return secrets.token_urlsafe(12)


def new_seat_token() -> str:
    """192 random bits, handed to the room's creator once."""
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def seat_for_token(meta: RoomMeta, token: str) -> str | None:
    """"A" or "B" when ``token`` opens that seat of the room, else None (constant time)."""
    digest = token_hash(token)
    if hmac.compare_digest(digest, meta.token_hash_a):
        return "A"
    if hmac.compare_digest(digest, meta.token_hash_b):
        return "B"
    return None
