"""The store's appends on a Redis Cluster: group-committed as on one Redis, each sent to the
master of its room's slot, and answered only once a replica has it (``WAIT``).

A batch (the appends of every room that wrote in one loop iteration,
``server.store.group_commit``) is split by master; each master gets one pipeline on its own
connection (``server.store.cluster_router``): ``SCRIPT LOAD`` first when that connection has
not loaded the script, one ``EVALSHA`` of the append script per room (its four keys share
the room's hash tag: one slot), then ``WAIT <replicas> <ms>``. ``WAIT`` answers how many
replicas have received every write this connection sent before it; fewer than
``wait_replicas`` within ``wait_ms`` and every append of that pipeline is answered
``StorageUnavailable`` ("try again"): it may be on the master alone, and a failover now
would lose it. (It may also survive: the room's next append then meets ``STALE version``
and the room reloads, as after any unconfirmed write.) The lobby index updates (``ZADD``
and ``ZREM`` on ``{lobby}:public``, another slot) go through the cluster client after the
appends and are not waited for: they only order the lobby list.

With ``aof`` (Redis or Valkey 7.2 and later) the pipeline ends with ``WAITAOF 1 <replicas>
<ms>`` instead: the master's own append-only file and ``wait_replicas`` replicas' files have
every write of the pipeline fsynced. Redis 7.0 (Debian 12's) has no ``WAITAOF``: ``WAIT``
confirms that the replica has the write in memory. With ``appendfsync always`` on the
replica the write is also in its append-only file by then (a Redis writes and fsyncs its AOF
before it sends the replies of the same event-loop turn, and the acknowledgement ``WAIT``
waits for is such a reply), but that is Redis's implementation, not its documented contract
(docs/deploy.md, "Durability on a cluster").

Failures: a lost connection or a timeout fails the appends of that master only ("try
again") and reads the slot map again; a ``MOVED``/``CLUSTERDOWN`` reply likewise fails
that room's append; ``NOSCRIPT`` (a replica promoted, or ``SCRIPT FLUSH``) sends those
appends once more, the script loaded in front. Unlike on one Redis, every batch runs as a
coroutine (a task per batch).

A slot being moved to another master (``redis-cli --cluster reshard``/``rebalance``: the
slot ``MIGRATING`` on its master, ``IMPORTING`` on the new one, its keys moved in batches by
``MIGRATE``). A script runs only on a node that holds every key it declares, so a room's
state is never written in two places: the old master runs it while it holds all the room's
keys; once some have moved it answers ``ASK <slot> <host:port>`` (Redis 7.0, checked on
7.0.15; 7.2 and later answer ``TRYAGAIN`` while it still holds some, ``ASK`` once it holds
none); the new master runs a command on the slot only after ``ASKING``, and then a script
on several keys only if it holds every one, else ``TRYAGAIN``. A key that does not exist
counts as not held (a seat never answered has no answers list, a room without an event no
stream; a room's creation declares four keys none of which exist yet).

- ``ASK``: the call is sent once more, to the node named, on that master's pipelined
  connection: one pipeline per target node for every call of the batch asked there,
  ``ASKING`` before each ``EVALSHA`` (it lets the next command only through), then that
  connection's ``WAIT``/``WAITAOF``, which is what confirms those calls: the source's
  ``WAIT`` counts the writes the source made, not one made on the target. For a load
  (``confirm``) the confirming ``SET`` is sent after ``ASKING`` too (one key, served on an
  importing slot whether it exists or not). The append script checks the fence and the
  version in the state hash on the node that runs it: the new master runs it only with
  every key of the room there, state included, so the checks read the room's one state
  (tests/store/test_cluster_asked_appends.py: a stale fence is refused there). ``ASK`` is
  followed once: a second ``ASK`` or a ``MOVED`` from the target is "try again" (a
  ``MOVED`` reads the slot map again). An ``ASK`` does not change the slot map: it is for
  one command, the slot is still the old master's until it is assigned (``CLUSTER SETSLOT
  NODE``), after which the old master answers ``MOVED`` and the map is read again.
- ``TRYAGAIN`` (the room's keys split between the two masters, or one of them not written
  yet): "try again" (``StorageUnavailable``), nothing else to do: a multi-key script needs
  all its keys on one node and neither node has them; the room's next keys moved (or the
  slot assigned, after which the new master holds them all) end it. The slot map is not
  read again for ``ASK`` or ``TRYAGAIN`` (it is right: the move is not done).

A batch of loads whose first room's slot is being moved: the confirming ``SET`` on its
hash tag (a key the old master does not hold, in a slot it is migrating) is answered
``ASK``, so the reads that master served in the batch are not confirmed ("try again";
``ClusterRoomStore`` reads them again at once). The slot is remembered (``MOVING_KEPT``)
and the next batches confirm on the hash tag of a room of another slot when they have one.
A load of that room alone, its keys not moved yet, has no other slot to confirm on: "try
again" until its keys have moved (then it is asked to the new master and confirmed there).

Loads confirmed on a replica (``confirmed_calls``: the store's ``load_room``/``load_rooms``
when ``wait_replicas`` > 0 or ``aof``): what a load reads may include a write that was
refused ``NotReplicated`` but landed on the master (and a room loaded from it would answer
that command, sent again under its id, from its stored answer: ``accepted``, while no
replica has it). ``WAIT`` confirms only the writes the connection that sends it made (a
client that only read has none: ``WAIT`` would return at once), so each master's pipeline
of reads ends with a write of its own, then ``WAIT``: ``SET <tag>:confirm 1 PX
CONFIRM_TTL_MS`` on the hash tag of one room read there (``confirm_key``; no code reads or
lists it, and it expires). The master runs the pipeline in order and replicates in order,
so once a replica has that write it has everything the master had when the reads ran. One
extra write and ``WAIT`` per master per batch of loads, in the reads' own round trip; not
confirmed in time and every read of that master is answered ``NotReplicated`` ("try
again") instead of its data; the write refused (a slot moving, a demoted master) and they
are answered ``StorageUnavailable`` (the store reads them again once it has read the slot
map again: ``server.store.cluster_store``). The loads share each master's connection with
the appends: a batch of loads' replies (snapshots, events) come before the replies of the
appends pipelined after it.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Sequence
from typing import Any

from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.append_batches import PendingAppend
from server.store.cluster_router import ClusterRouter, asked_to, slot_migrating, slot_moved
from server.store.group_commit import Deliver, GroupCommit, deliver_when_done
from server.store.redis_errors import StorageUnavailable, storage_call
from server.store.resp import pack_command

log = logging.getLogger(__name__)

Call = tuple[Sequence[str], Sequence[Any]]  # a script's keys and arguments
ATTEMPTS = 2
"""Sends of one call at most: the second only when the first found no script (NOSCRIPT)."""
ASKING = pack_command(b"ASKING")
MOVING_KEPT = 64
"""Slots remembered as being moved (``_confirm_on``): a move is a slot at a time, so a few;
a slot whose move is done stays until pushed out, and only loses its preference."""
CONFIRM_TTL_MS = 10_000
"""How long a load's confirming write (``confirm_key``) lives: only its replication matters,
so it expires soon and nothing accumulates."""


def confirm_key(key: str) -> str:
    """The key of the write that confirms a load of ``key``'s room: the same hash tag (the
    same slot, so the same master)."""
    tag = key[:key.index("}") + 1] if key.startswith("{") and "}" in key else key
    return f"{tag}:confirm"


class NotReplicated(StorageUnavailable):
    """The master has the write but fewer replicas than asked confirmed it in time."""


class ClusterAppendBatches:
    def __init__(self, client: RedisCluster, script: str, lobby_key: str, *,
                 wait_replicas: int, wait_ms: int, aof: bool = False) -> None:
        """``aof``: confirm with ``WAITAOF 1 <wait_replicas> <wait_ms>`` (Redis or Valkey
        7.2 or later): the master's own append-only file and ``wait_replicas`` replicas'
        have the writes fsynced; else ``WAIT`` (the replicas have them in memory)."""
        self._redis = client
        self._script = script
        self._lobby_key = lobby_key
        self.aof = aof
        self.wait_replicas = wait_replicas
        self.wait_ms = max(1, wait_ms)  # (WAIT 0 would wait for ever)
        self.router = ClusterRouter(client)
        self._loaded: dict[tuple[str, str], int | None] = {}  # (node, sha) -> connection
        self._moving: dict[int, None] = {}  # slots whose confirming write met ASK, latest last
        self._group: GroupCommit[PendingAppend] = GroupCommit(self._flush)

    async def append(self, item: PendingAppend) -> Any:
        """The append's outcome (an error outcome is returned, not raised)."""
        return await self._group.submit(item)

    async def durable_call(self, script: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """One script call on the master of its keys' slot, confirmed by ``WAIT`` like an
        append (a room's creation); raises its error reply or ``StorageUnavailable``."""
        (outcome,) = await self._calls(script, [(keys, args)])
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def confirmed_calls(self, script: str, calls: list[Call]) -> list[Any]:
        """Each read-only script call's outcome, as ``_calls`` (one pipeline per master),
        each master's reads followed by a write of their hash tag and ``WAIT``: a reply is
        returned only once ``wait_replicas`` replicas have everything it was read from;
        else its outcome is ``NotReplicated`` (or the ``StorageUnavailable`` of a failed
        round trip). Without waits (``wait_replicas`` 0, no ``aof``) nothing is confirmed."""
        return await self._calls(script, calls, confirm=self.waits, what="load")

    async def close(self) -> None:
        await self.router.close()

    def _flush(self, batch: list[PendingAppend], deliver: Deliver) -> None:
        deliver_when_done(self._write(batch), deliver)

    async def _write(self, batch: list[PendingAppend]) -> list[Any]:
        outcomes = await self._calls(self._script, [(item.keys, item.args) for item in batch])
        listed = {item.room_id: item.listing.updated_ms for item in batch
                  if item.listing is not None}
        if listed:
            try:
                async with storage_call("lobby index"):
                    await self._redis.zadd(self._lobby_key, listed)
            except (RedisError, StorageUnavailable) as error:  # only orders the lobby list
                log.warning("Redis Cluster: lobby index not updated: %s", error)
        unlisted = [index for index, outcome in enumerate(outcomes)
                    if type(outcome) is list and outcome[1]]
        if unlisted:
            try:
                async with storage_call("lobby index"):
                    await self._redis.zrem(self._lobby_key,
                                           *(batch[i].room_id for i in unlisted))
            except (RedisError, StorageUnavailable) as error:
                for index in unlisted:
                    outcomes[index] = StorageUnavailable(f"append (lobby index): {error}")
        return outcomes

    async def _calls(self, script: str, calls: list[Call], *, confirm: bool = False,
                     what: str = "append") -> list[Any]:
        """Each call's outcome (its reply, or the exception that is its outcome);
        ``confirm``: each master's pipeline writes ``confirm_key`` before its ``WAIT``
        (``confirmed_calls``)."""
        outcomes: list[Any] = [None] * len(calls)
        try:
            # (the slot map may be read here: its failures are redis-py's, not RedisErrors)
            with storage_call(what):
                await self.router.ready()
                by_node: dict[str, tuple[ClusterNode, list[int]]] = {}
                for index, (keys, _args) in enumerate(calls):
                    node = self.router.node_for(keys[0])
                    by_node.setdefault(node.name, (node, []))[1].append(index)
        except (RedisError, StorageUnavailable) as error:
            self.router.refresh_soon()
            if not isinstance(error, StorageUnavailable):
                error = StorageUnavailable(f"{what}: {error}")
            return [error] * len(calls)
        await asyncio.gather(*(self._on_node(node, script, calls, todo, outcomes, confirm, what)
                               for node, todo in by_node.values()))
        return outcomes

    async def _on_node(self, node: ClusterNode, script: str, calls: list[Call],
                       todo: list[int], outcomes: list[Any], confirm: bool = False,
                       what: str = "append", asking: bool = False) -> None:
        """The outcomes of the calls ``todo`` on ``node``'s connection; the calls it answers
        ``ASK`` (their slot being moved, their keys already on the new master) sent once
        more, on the new master's connection, each after ``ASKING``, and confirmed by that
        connection's ``WAIT`` (``asking``: this is that second send, not followed again)."""
        asked = await self._sent(node, script, calls, todo, outcomes, confirm, what, asking)
        await asyncio.gather(*(
            self._on_node(self.router.node_at(address), script, calls, indices, outcomes,
                          confirm, what, asking=True)
            for address, indices in asked.items()))

    async def _sent(self, node: ClusterNode, script: str, calls: list[Call], todo: list[int],
                    outcomes: list[Any], confirm: bool, what: str,
                    asking: bool) -> dict[str, list[int]]:
        """Sets the outcomes of the calls ``todo`` sent to ``node``, but those answered
        ``ASK`` (unless ``asking``): returned by the address they are asked to."""
        sha = hashlib.sha1(script.encode()).hexdigest()
        asked: dict[str, list[int]] = {}
        for _attempt in range(ATTEMPTS):
            channel = self.router.channel(node)
            try:
                await channel.connect()
                commands, where, confirming = self._pack(
                    node, channel.connection, script, sha, [calls[index] for index in todo],
                    confirm, asking)
                results = await channel.execute(commands)
            except (RedisConnectionError, RedisTimeoutError, OSError) as error:
                self.router.refresh_soon()  # a master gone? its replica may serve it soon
                for index in todo:
                    outcomes[index] = StorageUnavailable(f"{what} on {node.name}: {error}")
                return asked
            replicas = _confirmed_by(results[-1], self.aof) if self.waits else 0
            unconfirmed = results[-2] if confirm and isinstance(results[-2], Exception) else None
            if unconfirmed is not None and slot_migrating(unconfirmed) and confirming:
                self._note_moving(confirming)  # (the next batch confirms on another slot)
            elif unconfirmed is not None and slot_moved(unconfirmed):
                self.router.refresh_soon()
            retry = []
            for index, at in zip(todo, where, strict=True):
                outcome = results[at]
                if isinstance(outcome, NoScriptError):
                    retry.append(index)
                    self._loaded.pop((node.name, sha), None)
                    continue
                target = asked_to(outcome) if not asking else None
                if target is not None:
                    asked.setdefault(target, []).append(index)
                    continue
                if isinstance(outcome, ResponseError) and slot_moved(outcome):
                    if not slot_migrating(outcome):  # (an ASK or TRYAGAIN: the map is right)
                        self.router.refresh_soon()
                    outcome = StorageUnavailable(
                        f"{what}{' (asked)' if asking else ''} on {node.name}: {outcome}")
                elif isinstance(outcome, RedisConnectionError):  # LOADING
                    outcome = StorageUnavailable(f"{what}: {outcome}")
                elif unconfirmed is not None and not isinstance(outcome, Exception):
                    # The confirming write was refused (a slot moving, a demoted master):
                    # WAIT counted only this connection's earlier writes.
                    outcome = StorageUnavailable(f"{what} on {node.name}: not confirmed: "
                                                 f"{unconfirmed}")
                elif (not isinstance(outcome, Exception) and self.waits
                      and (isinstance(replicas, Exception) or replicas < self.wait_replicas)):
                    outcome = NotReplicated(
                        f"{what} on {node.name}: {replicas} of {self.wait_replicas} replicas "
                        f"confirmed it within {self.wait_ms} ms"
                        + (" (WAITAOF: with the master's own fsync)" if self.aof else ""))
                outcomes[index] = outcome
            if not retry:
                return asked
            todo = retry
        for index in todo:
            outcomes[index] = StorageUnavailable(f"{what}: script cache kept emptying")
        return asked

    def _pack(self, node: ClusterNode, connection: int | None, script: str, sha: str,
              calls: list[Call], confirm: bool = False,
              asking: bool = False) -> tuple[list[bytes], list[int], str | None]:
        """The pipeline's commands, where each call's ``EVALSHA`` is in it, and the key of
        the confirming write (``confirm``); ``asking``: ``ASKING`` before each command on
        the calls' slots (it lets the next command only through on a slot the node is
        importing)."""
        commands: list[bytes] = []
        if self._loaded.get((node.name, sha)) != connection:
            commands.append(pack_command(b"SCRIPT", b"LOAD", script))
            self._loaded[(node.name, sha)] = connection
        where = []
        for keys, args in calls:
            if asking:
                commands.append(ASKING)
            where.append(len(commands))
            commands.append(pack_command(b"EVALSHA", sha, len(keys), *keys, *args))
        confirming = None
        if confirm:  # (after the reads: Redis runs one connection's commands in order)
            if asking:
                commands.append(ASKING)
            confirming = confirm_key(self._confirm_on(calls))
            commands.append(pack_command(b"SET", confirming, b"1", b"PX", CONFIRM_TTL_MS))
        if self.aof:
            commands.append(pack_command(b"WAITAOF", 1, self.wait_replicas, self.wait_ms))
        elif self.wait_replicas > 0:
            commands.append(pack_command(b"WAIT", self.wait_replicas, self.wait_ms))
        return commands, where, confirming

    def _confirm_on(self, calls: list[Call]) -> str:
        """A key of the calls whose hash tag takes the confirming write: the first call's,
        unless its slot was seen being moved off this master lately (the master answers a
        write of a key it does not hold there ``ASK``, and the batch's reads it served would
        go unconfirmed); then the first call's of another slot, if any."""
        keyslot = self.router.client.keyslot
        for keys, _args in calls:
            if keyslot(keys[0]) not in self._moving:
                return keys[0]
        return calls[0][0][0]

    def _note_moving(self, key: str) -> None:
        slot = self.router.client.keyslot(key)
        self._moving.pop(slot, None)
        self._moving[slot] = None
        while len(self._moving) > MOVING_KEPT:
            del self._moving[next(iter(self._moving))]

    @property
    def waits(self) -> bool:
        """Whether writes are confirmed (``WAIT``/``WAITAOF``) before they are answered."""
        return self.aof or self.wait_replicas > 0


def _confirmed_by(reply: Any, aof: bool) -> int | Exception:
    """How many replicas confirmed the writes before ``WAIT``/``WAITAOF`` (its error as it
    is); for ``WAITAOF`` -1 when the master's own fsync is not confirmed (appendonly no)."""
    if isinstance(reply, Exception):
        return reply
    if aof:
        local, replicas = reply
        return int(replicas) if int(local) >= 1 else -1
    return int(reply)
