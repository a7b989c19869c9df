"""The Redis store's Lua scripts: each one atomic, each touching one room's keys only.

A room's keys, all under its ``{room:<id>}`` hash tag (one Cluster slot), and every script
that writes takes all four so that they expire together (``ROOM_KEYS``):

1. ``:state`` hash -- meta, version, fence, owner, snapshot, ``armies`` (the army lists of
   the snapshot, kept apart: absent when the snapshot holds its own), deadlines, listing,
   and ``retention`` (ms; absent or 0: kept for ever);
2. ``:events`` stream;
3. ``:answers:A`` and 4. ``:answers:B`` lists -- each seat's latest answers, oldest first,
   each entry msgpack ``[command id, frame]``.

Split keys (``WHOLE_ROOM``): a slot move that a master's failover cut short leaves a room's keys
on two masters (the promoted replica owns the slot and holds the keys not moved yet; the
importing master holds the others) until ``redis-cli --cluster fix`` brings them together
(docs/deploy.md, "A master lost during a slot move"). Redis no longer guards that slot (the
replica never learnt it was ``MIGRATING``), so the scripts do: a room with its state but
without the event stream its version needs, or without the answers list of a seat that
answered (``answered_A``/``answered_B``, set in the state at a seat's first answer), or
with other keys but no state, is answered ``TRYAGAIN`` and nothing is written or read as
the room. A key written then would exist on both masters, which ``--cluster fix`` refuses
to merge, and a room read then would be a room missing part of its game.

Retention (``_KEEP``): after a write, a room with a retention expires that long after it,
every key at the same instant (one ``PEXPIREAT`` time taken from Redis's own clock); a room
whose retention becomes 0 (its game began) has its expiry removed (``PERSIST``); a room
kept for ever before and after costs nothing more. Keys a write creates (the stream at the
first event, an answers list at a seat's first answer) get the expiry in the same script.
"""

from __future__ import annotations

ANSWER_KEYS = ("A", "B")

# keep(keys, before, wanted): the room's retention is ``wanted`` ('' = ``before``, what the
# hash says); start it again from now on every key, or remove it.
_KEEP = """
local function keep(keys, before, wanted)
  local ms = before
  if wanted ~= '' then ms = tonumber(wanted) end
  if ms > 0 then
    local now = redis.call('TIME')
    local at = string.format('%d', tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + ms)
    for _, key in ipairs(keys) do redis.call('PEXPIREAT', key, at) end
  elseif before > 0 then
    for _, key in ipairs(keys) do redis.call('PERSIST', key) end
  end
  if ms ~= before then redis.call('HSET', keys[1], 'retention', ms) end
end
"""

# The room's keys split between two masters (module docstring): SPLIT is the error reply.
# split(events, answers A, answers B, version, answered A, answered B): whether the state
# (read by the caller) names a key that is not there (one EXISTS on every append);
# stateless(events, answers A, answers B, gone): the reply for a room without its state,
# SPLIT if its other keys are there, else ``gone`` (the caller's reply for no such room).
WHOLE_ROOM = """
local SPLIT = 'TRYAGAIN the room keys are split between two masters: a slot move was cut short'
local function split(events, answers_a, answers_b, version, answered_a, answered_b)
  local needed = {}
  if tonumber(version) > 0 then needed[#needed + 1] = events end
  if answered_a then needed[#needed + 1] = answers_a end
  if answered_b then needed[#needed + 1] = answers_b end
  return #needed > 0 and redis.call('EXISTS', unpack(needed)) < #needed
end
local function stateless(events, answers_a, answers_b, gone)
  if redis.call('EXISTS', events, answers_a, answers_b) > 0 then
    return redis.error_reply(SPLIT)
  end
  return gone
end
"""

# ARGV: meta, snapshot, deadlines, listing ('' = none), retention (ms, 0 = for ever).
CREATE = _KEEP + """
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('EXISTS room') end
redis.call('HSET', KEYS[1], 'meta', ARGV[1], 'version', 0, 'fence', 0,
           'snapshot', ARGV[2], 'snapshot_version', 0, 'deadlines', ARGV[3],
           'first_snapshot', ARGV[2])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'listing', ARGV[4]) end
keep(KEYS, 0, ARGV[5])
return 0
"""

CLAIM = WHOLE_ROOM + """
if redis.call('EXISTS', KEYS[1]) == 0 then return stateless(KEYS[2], KEYS[3], KEYS[4], false) end
redis.call('HSET', KEYS[1], 'owner', ARGV[1])
return redis.call('HINCRBY', KEYS[1], 'fence', 1)
"""

# ARGV: fence, expected_version, has_snapshot ('1'/'0'), snapshot, deadlines, listing
# ('' = none), answer's seat ('' = no answer, 'A', 'B'), answer entry, answers kept,
# retention ('' = the room's), commit ms, ARO window deadline after the commit (0 = none),
# the army lists kept apart from the snapshot ('' = unchanged; only with a snapshot), then
# one argument per event. No event is ever trimmed. A room without a listing (a private
# room: never one) costs no HDEL, and an answers list no LTRIM until it is longer than kept.
# Returns {new version, 1 if it removed a listing the room had (else 0)}: only then does
# the lobby index need a ZREM (a private room, never listed, needs none).
APPEND = _KEEP + WHOLE_ROOM + """
local cur = redis.call('HMGET', KEYS[1], 'fence', 'version', 'snapshot_version', 'retention',
                       'listing', 'answered_A', 'answered_B')
if not cur[1] then
  return stateless(KEYS[2], KEYS[3], KEYS[4], redis.error_reply('STALE no such room'))
end
if tonumber(cur[1]) ~= tonumber(ARGV[1]) then return redis.error_reply('STALE fence') end
if tonumber(cur[2]) ~= tonumber(ARGV[2]) then return redis.error_reply('STALE version') end
if split(KEYS[2], KEYS[3], KEYS[4], cur[2], cur[6], cur[7]) then
  return redis.error_reply(SPLIT)
end
local v = tonumber(ARGV[2])
local snapv = tonumber(cur[3]) or v
for i = 14, #ARGV do
  v = v + 1
  redis.call('XADD', KEYS[2], string.format('%d-0', v), 'e', ARGV[i], 't', ARGV[11],
             'w', ARGV[12])
end
if ARGV[3] == '1' then
  snapv = v
  redis.call('HSET', KEYS[1], 'snapshot', ARGV[4])
  if ARGV[13] ~= '' then redis.call('HSET', KEYS[1], 'armies', ARGV[13]) end
end
redis.call('HSET', KEYS[1], 'version', v, 'snapshot_version', snapv, 'deadlines', ARGV[5])
local unlisted = 0
if ARGV[6] == '' then
  if cur[5] then unlisted = redis.call('HDEL', KEYS[1], 'listing') end
else
  redis.call('HSET', KEYS[1], 'listing', ARGV[6])
end
if ARGV[7] ~= '' then
  local answers, answered = KEYS[3], cur[6]
  if ARGV[7] == 'B' then answers, answered = KEYS[4], cur[7] end
  if redis.call('RPUSH', answers, ARGV[8]) > tonumber(ARGV[9]) then
    redis.call('LTRIM', answers, -tonumber(ARGV[9]), -1)
  end
  if not answered then redis.call('HSET', KEYS[1], 'answered_' .. ARGV[7], 1) end
end
keep(KEYS, tonumber(cur[4]) or 0, ARGV[10])
return {v, unlisted}
"""

# ARGV: fence, deadlines. Presence changes: deadlines without an event, fenced like append;
# the room's retention starts again from now.
SET_DEADLINES = _KEEP + WHOLE_ROOM + """
local cur = redis.call('HMGET', KEYS[1], 'fence', 'retention')
if not cur[1] then
  return stateless(KEYS[2], KEYS[3], KEYS[4], redis.error_reply('STALE no such room'))
end
if tonumber(cur[1]) ~= tonumber(ARGV[1]) then return redis.error_reply('STALE fence') end
redis.call('HSET', KEYS[1], 'deadlines', ARGV[2])
keep(KEYS, tonumber(cur[2]) or 0, '')
return 1
"""

# ARGV: listing ('' = remove it). Nothing for a room that is gone (it must not come back as
# a hash holding a listing alone); returns 1 when the room exists.
SET_LISTING = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] == '' then redis.call('HDEL', KEYS[1], 'listing')
else redis.call('HSET', KEYS[1], 'listing', ARGV[1]) end
return 1
"""

# The room's version alone (a load's version without the room: ``loaded_version``).
VERSION = """
return redis.call('HGET', KEYS[1], 'version')
"""

# KEYS: the room's hash, the lobby index. ARGV: listing ('' = remove it), its updated_ms,
# the room's id. SET_LISTING and the index's ZADD (or ZREM) in one call, where one script may
# take both keys (a single Redis; in a Cluster the index lives in another slot).
SET_LISTING_INDEXED = """
local exists = redis.call('EXISTS', KEYS[1])
if exists == 1 then
  if ARGV[1] == '' then redis.call('HDEL', KEYS[1], 'listing')
  else redis.call('HSET', KEYS[1], 'listing', ARGV[1]) end
end
if exists == 0 or ARGV[1] == '' then redis.call('ZREM', KEYS[2], ARGV[3])
else redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3]) end
return exists
"""

# The hash fields, the events after the snapshot and both seats' answers, in one atomic read.
LOAD = WHOLE_ROOM + """
local f = redis.call('HMGET', KEYS[1], 'meta', 'version', 'snapshot', 'deadlines',
                     'snapshot_version', 'answered_A', 'answered_B', 'armies')
if not f[1] then return stateless(KEYS[2], KEYS[3], KEYS[4], false) end
if split(KEYS[2], KEYS[3], KEYS[4], f[2], f[6], f[7]) then return redis.error_reply(SPLIT) end
local snapv = f[5] or f[2]
local entries = redis.call('XRANGE', KEYS[2], string.format('%d-0', tonumber(snapv) + 1), '+')
local events = {}
for i, entry in ipairs(entries) do events[i] = entry[2][2] end
return {f[1], f[2], f[3], f[4] or '', snapv, events,
        redis.call('LRANGE', KEYS[3], 0, -1), redis.call('LRANGE', KEYS[4], 0, -1),
        f[8] or ''}
"""
