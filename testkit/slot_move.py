"""One slot moved from its master to another master of a running test cluster, step by step,
the way ``redis-cli --cluster reshard`` moves each slot:

1. ``begin``: ``CLUSTER SETSLOT <slot> IMPORTING <source-id>`` on the target, then
   ``CLUSTER SETSLOT <slot> MIGRATING <target-id>`` on the source. From now on the source
   answers a command on a key it no longer has ``-ASK`` (the client asks the target, after
   ``ASKING``), and a command on several keys of which it has only some ``-TRYAGAIN``;
2. ``migrate``: ``CLUSTER GETKEYSINSLOT`` on the source and ``MIGRATE ... KEYS ...`` of a
   batch of them (or of the keys named) to the target: the keys are split between the two
   masters until every one has moved;
3. ``finish``: ``CLUSTER SETSLOT <slot> NODE <target-id>`` on the target, the source and the
   other masters; returns once every node that runs says the target serves the slot. The
   source then sends its sharded pub/sub subscribers of the slot's channels an unasked
   ``sunsubscribe``, and answers ``-MOVED`` to commands on the slot.

A test calls the steps itself (in a thread: they block) and sends its commands between
them. Nothing sleeps blindly: ``finish`` polls ``CLUSTER NODES`` as
``RedisClusterProcesses.wait_until`` does, ``migrate_all`` loops on
``CLUSTER COUNTKEYSINSLOT``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from testkit.redis_cluster import NodeView, RedisClusterProcesses

MIGRATE_TIMEOUT_MS = 5000
BATCH = 10  # keys per MIGRATE (redis-cli's --cluster-pipeline default)


class SlotMove:
    def __init__(self, cluster: RedisClusterProcesses, slot: int, source: NodeView,
                 target: NodeView) -> None:
        if source.node_id == target.node_id:
            raise ValueError(f"slot {slot} is already on {target.port}")
        self.cluster = cluster
        self.slot = slot
        self.source = source
        self.target = target

    def run(self) -> None:
        """Every step at once (a move between two commands)."""
        self.begin()
        self.migrate_all()
        self.finish()

    def begin(self) -> None:
        """Mark the slot importing on the target, then migrating on the source (redis-cli's
        order: the target accepts ``ASKING`` before the source redirects to it)."""
        self._setslot(self.target.port, "IMPORTING", self.source.node_id)
        self._setslot(self.source.port, "MIGRATING", self.target.node_id)

    def keys_left(self) -> list[str]:
        """The slot's keys still on the source."""
        with self.cluster.client(self.source.port) as client:
            count = int(client.execute_command("CLUSTER", "COUNTKEYSINSLOT", self.slot))
            if count == 0:
                return []
            return [str(key) for key in
                    client.execute_command("CLUSTER", "GETKEYSINSLOT", self.slot, count)]

    def migrate(self, keys: list[str] | None = None) -> list[str]:
        """Move ``keys`` (default: a batch of those left) to the target in one ``MIGRATE``;
        the keys moved."""
        batch = keys if keys is not None else self.keys_left()[:BATCH]
        if batch:
            with self.cluster.client(self.source.port) as client:
                reply = client.execute_command(
                    "MIGRATE", "127.0.0.1", self.target.port, "", 0, MIGRATE_TIMEOUT_MS,
                    "KEYS", *batch)
            if str(reply) not in ("OK", "NOKEY"):
                raise RuntimeError(f"MIGRATE of slot {self.slot}: {reply}")
        return batch

    def migrate_all(self) -> None:
        """Move batches until the source has no key of the slot left."""
        while self.migrate():
            pass

    def finish(self) -> None:
        """Assign the slot to the target on the target, the source and the other masters;
        return once every running node's ``CLUSTER NODES`` says so."""
        self._setslot(self.target.port, "NODE", self.target.node_id)
        self._setslot(self.source.port, "NODE", self.target.node_id)
        for master in self.cluster.masters():
            if master.node_id not in (self.source.node_id, self.target.node_id):
                self._setslot(master.port, "NODE", self.target.node_id)
        self.cluster.wait_until(self._everyone_agrees,
                                f"slot {self.slot} to be served by {self.target.port}")

    def _everyone_agrees(self) -> bool:
        for port in self.cluster.alive_ports():
            serving = [node.node_id for node in self.cluster.view(port)
                       if node.role == "master" and not node.failed
                       and any(start <= self.slot <= end for start, end in node.slots)]
            if serving != [self.target.node_id]:
                return False
        return True

    def _setslot(self, port: int, *args: str) -> None:
        with self.cluster.client(port) as client:
            client.execute_command("CLUSTER", "SETSLOT", self.slot, *args)
