"""A room's caster links as stored: one short record per link, so that the organizer can
list the links it made and withdraw one (``server.lobby.caster_routes``).

A caster token is an HMAC of the room id and a random nonce (``server.lobby.tokens``); the
nonce alone names the link. The record of a link is ``[nonce, created_ms, withdrawn_ms]``
(``withdrawn_ms`` 0: in use; ``created_ms`` 0: a link withdrawn without having been
recorded here, e.g. one made before rooms recorded their links). The records live in the room's
``{room:<id>}:state`` hash, field ``casters`` (msgpack list, oldest first), so they expire
with the room and cost nothing to the room's other reads and writes (which name their
fields). The scripts below read and write that field atomically; they leave a room that
does not exist alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from protocol.codec import unpack_plain

MAX_MADE = 100
"""Caster links a room's organizer may make (withdrawn ones count): beyond, 409
``too_many_caster_links``. Far more than a stream needs; it bounds the record."""
MAX_RECORDS = 2 * MAX_MADE
"""Records a room keeps at most: a withdrawal of a link that was never recorded adds one,
so every made link can always be withdrawn, and ``MAX_MADE`` others too."""
CASTERS_FIELD = "casters"

Recorded = Literal["recorded", "full"]
Full = Literal["full"]
Withdrawn = Literal["withdrawn", "already_withdrawn", "full"]


@dataclass(frozen=True, slots=True)
class CasterLink:
    nonce: str
    created_ms: int
    """When the organizer made it (Unix ms); 0: withdrawn without having been recorded."""
    withdrawn_ms: int = 0
    """When it was withdrawn (Unix ms); 0: it still opens the caster feed."""

    @property
    def withdrawn(self) -> bool:
        return self.withdrawn_ms > 0


def unpack_links(packed: bytes | str | None) -> tuple[CasterLink, ...]:
    if not packed or isinstance(packed, str):  # (the client answers bytes)
        return ()
    return tuple(CasterLink(str(nonce), int(created), int(withdrawn))
                 for nonce, created, withdrawn in unpack_plain(bytes(packed)))


# KEYS: the room's state hash. ARGV: nonce, created ms, most records.
# Returns the number of records now, -1 (no such room) or -2 (full).
RECORD = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local packed = redis.call('HGET', KEYS[1], 'casters')
local links = {}
if packed then links = cmsgpack.unpack(packed) end
if #links >= tonumber(ARGV[3]) then return -2 end
links[#links + 1] = {ARGV[1], tonumber(ARGV[2]), 0}
redis.call('HSET', KEYS[1], 'casters', cmsgpack.pack(links))
return #links
"""

# KEYS: the room's state hash. ARGV: nonce, withdrawal ms, most records.
# Returns {status, created ms, withdrawn ms}: status 1 withdrawn now, 2 withdrawn before
# (its first withdrawal's time), -1 no such room, -2 full (an unrecorded nonce).
WITHDRAW = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0, 0} end
local packed = redis.call('HGET', KEYS[1], 'casters')
local links = {}
if packed then links = cmsgpack.unpack(packed) end
for _, link in ipairs(links) do
  if link[1] == ARGV[1] then
    if link[3] ~= 0 then return {2, link[2], link[3]} end
    link[3] = tonumber(ARGV[2])
    redis.call('HSET', KEYS[1], 'casters', cmsgpack.pack(links))
    return {1, link[2], link[3]}
  end
end
if #links >= tonumber(ARGV[3]) then return {-2, 0, 0} end
links[#links + 1] = {ARGV[1], 0, tonumber(ARGV[2])}
redis.call('HSET', KEYS[1], 'casters', cmsgpack.pack(links))
return {1, 0, tonumber(ARGV[2])}
"""

# KEYS: the room's state hash. ARGV: nonce, created ms, most made.
# The room's oldest link in use, or, when none is, ARGV[1] recorded as a new one (as RECORD
# does): a tournament's dashboard shows one link per table, the same at every read, and two
# reads at once make one link. Returns {status, nonce, created ms}: 1 a link in use, 2 the
# nonce recorded now, -1 no such room, -2 none in use and full.
CURRENT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1, '', 0} end
local packed = redis.call('HGET', KEYS[1], 'casters')
local links = {}
if packed then links = cmsgpack.unpack(packed) end
for _, link in ipairs(links) do
  if link[3] == 0 then return {1, link[1], link[2]} end
end
if #links >= tonumber(ARGV[3]) then return {-2, '', 0} end
links[#links + 1] = {ARGV[1], tonumber(ARGV[2]), 0}
redis.call('HSET', KEYS[1], 'casters', cmsgpack.pack(links))
return {2, ARGV[1], tonumber(ARGV[2])}
"""

RECORD_ANSWERS: dict[int, Recorded | None] = {-1: None, -2: "full"}
WITHDRAW_ANSWERS: dict[int, Withdrawn | None] = {1: "withdrawn", 2: "already_withdrawn",
                                                 -1: None, -2: "full"}
