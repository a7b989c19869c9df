"""Room ids, seat, organizer and caster tokens: unguessable, and only the hashes of seat
and organizer tokens are stored.

A caster token is ``c.<nonce>.<mac>``: an HMAC-SHA256 of the room id and a random nonce,
keyed by the stored hash of the room's organizer token. Only the server (which holds the
hash) and whoever holds the organizer token (through the lobby, ``POST
/api/rooms/{room}/casters``) can make one. The nonce names the link: the room keeps a
short record per link (``server.store.caster_links``), and a withdrawn nonce opens nothing
(``server.lobby.caster_routes``, ``server.transport.caster_sessions``).

Every token a client presents (seat, organizer, caster, tournament player and organizer)
goes through ``presented`` first: text of the shape our tokens have (base64url and the
caster token's dots, at most ``MAX_TOKEN_CHARS``) becomes ASCII bytes, anything else is no
token at all. Comparisons are then of bytes with bytes (``hmac.compare_digest`` of two
``str`` raises ``TypeError`` for non-ASCII text, and ``str.encode`` raises for a lone
surrogate, which JSON can carry), so a malformed token is refused like a wrong one, never
a traceback.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

from server.store import RoomMeta


def new_room_id() -> str:
    """96 random bits: private rooms are reachable only by their link."""
    return secrets.token_urlsafe(12)


def new_seat_token() -> str:
    """192 random bits, handed to the room's creator once."""
    return secrets.token_urlsafe(24)


MAX_TOKEN_CHARS = 128
"""The longest token text looked at (as long as a hello's token may be, protocol.codec):
ours are 32 characters, a caster token 46."""
_TOKEN_TEXT = re.compile(r"[A-Za-z0-9_.\-]+")


def presented(token: object) -> bytes | None:
    """A token a client sent, as the ASCII bytes it is compared by; None when it has no
    token's shape (not text, empty, longer than ``MAX_TOKEN_CHARS``, or any character
    outside base64url and ``.``): such a token opens nothing."""
    if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN_CHARS:
        return None
    if _TOKEN_TEXT.fullmatch(token) is None:
        return None
    return token.encode("ascii")


def token_hash(token: str) -> str:
    """The stored hash of a token the server made (its own, always ASCII)."""
    return hashlib.sha256(token.encode()).hexdigest()


def hash_matches(token: object, digest: str) -> bool:
    """Whether a presented ``token`` hashes to the stored hex ``digest`` (constant time,
    bytes with bytes); False for a malformed token or an empty digest."""
    raw = presented(token)
    if raw is None or not digest:
        return False
    return hmac.compare_digest(hashlib.sha256(raw).hexdigest().encode(),
                               digest.encode(errors="replace"))


def seat_for_token(meta: RoomMeta, token: object) -> str | None:
    """"A" or "B" when ``token`` opens that seat of the room, else None (constant time)."""
    if hash_matches(token, meta.token_hash_a):
        return "A"
    if hash_matches(token, meta.token_hash_b):
        return "B"
    return None


CASTER = "caster"
"""The role a caster token opens (``role_for_token``)."""


def new_organizer_token() -> str:
    """192 random bits, handed to the room's creator once, beside the seat tokens."""
    return secrets.token_urlsafe(24)


def is_organizer(meta: RoomMeta, token: object) -> bool:
    """Whether ``token`` is the room's organizer token (constant time); never for a room
    stored before organizers."""
    return hash_matches(token, meta.organizer_hash)


def new_caster_token(meta: RoomMeta) -> str:
    """A new caster token of the room (its organizer asked for it)."""
    return caster_token(meta, new_caster_nonce())


def new_caster_nonce() -> str:
    """A new caster link's nonce (random, base64url: ``is_nonce``)."""
    return secrets.token_urlsafe(12)


def caster_token(meta: RoomMeta, nonce: str) -> str:
    """The caster token of ``nonce`` in this room (the same every time it is asked)."""
    return f"c.{nonce}.{_caster_mac(meta, nonce)}"


_NONCE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def is_nonce(text: str) -> bool:
    """Whether ``text`` has a caster nonce's shape (base64url, at most 64 characters)."""
    return _NONCE.fullmatch(text) is not None


def caster_nonce(token: object) -> str | None:
    """The nonce of a token shaped like a caster token (``c.<nonce>.<mac>``), else None;
    says nothing of whether its MAC is right (``is_caster_token``)."""
    if presented(token) is None:
        return None
    assert isinstance(token, str)
    kind, _, rest = token.partition(".")
    nonce, _, _mac = rest.partition(".")
    return nonce if kind == "c" and is_nonce(nonce) else None


def _caster_mac(meta: RoomMeta, nonce: str) -> str:
    mac = hmac.new(bytes.fromhex(meta.organizer_hash), f"caster:{meta.room_id}:{nonce}".encode(),
                   hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def is_caster_token(meta: RoomMeta, token: object) -> bool:
    raw = presented(token)
    if raw is None or not meta.organizer_hash:
        return False
    kind, _, rest = raw.partition(b".")
    nonce, _, mac = rest.partition(b".")
    if kind != b"c" or not is_nonce(nonce.decode()):
        return False
    return hmac.compare_digest(mac, _caster_mac(meta, nonce.decode()).encode())


def role_for_token(meta: RoomMeta, token: object) -> str | None:
    """"A" or "B" for a seat token, ``CASTER`` for a caster token, else None."""
    seat = seat_for_token(meta, token)
    if seat is not None:
        return seat
    return CASTER if is_caster_token(meta, token) else None
