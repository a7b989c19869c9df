"""A tournament's ids and tokens: random, only their SHA-256 hashes stored; a token that a
retried request must get again is kept *sealed* with that request's action id (which is
never shown), so the answer can be given twice without the token being stored readable."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from server.lobby.tokens import hash_matches, token_hash

__all__ = ["matches", "new_id", "new_token", "seal", "token_hash", "unseal"]


def new_id() -> str:
    """96 random bits: a private tournament is reachable only by its id."""
    return secrets.token_urlsafe(12)


def new_token() -> str:
    """192 random bits (32 characters), handed out once."""
    return secrets.token_urlsafe(24)


def matches(token: object, digest: str) -> bool:
    """Whether a presented token is the one hashed to ``digest`` (constant time); never a
    malformed one (``server.lobby.tokens.presented``)."""
    return hash_matches(token, digest)


def _pad(key: str, context: str, size: int) -> bytes:
    pad = hmac.new(key.encode(), f"seal:{context}".encode(), hashlib.sha512).digest()
    assert size <= len(pad), "tokens are 32 characters"
    return pad[:size]


def seal(secret: str, key: str, context: str) -> str:
    """``secret`` XORed with a pad only ``key`` makes (HMAC-SHA512 of ``context``)."""
    raw = secret.encode()
    sealed = bytes(x ^ y for x, y in zip(raw, _pad(key, context, len(raw)), strict=True))
    return base64.urlsafe_b64encode(sealed).decode()


def unseal(sealed: str, key: str, context: str) -> str:
    raw = base64.urlsafe_b64decode(sealed.encode())
    return bytes(x ^ y for x, y in zip(raw, _pad(key, context, len(raw)), strict=True)).decode(
        errors="replace")
