"""Many slots moved between the masters of a running test cluster by ``redis-cli`` itself, as
an operator moves them: ``redis-cli --cluster reshard`` (a number of slots from some masters
to one) and ``redis-cli --cluster rebalance`` (slots from the masters with more than their
share to those with fewer). Each slot is moved the way ``testkit.slot_move`` moves one
(``IMPORTING``/``MIGRATING``, ``MIGRATE`` of its keys in batches, ``SETSLOT NODE``), one
slot after another, while clients go on using the cluster.

``redis-cli`` refuses to start while the nodes disagree about who serves what ("Nodes don't
agree about configuration!"), which they do for a moment after every move: ``settled``
polls ``CLUSTER NODES`` on every node until they agree and no slot is open, and
``run_cli`` runs the command as a subprocess the caller awaits (the event loop goes on
serving the games meanwhile). Nothing sleeps blindly.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

from testkit.redis_cluster import NodeView, RedisClusterProcesses

CLI_GUARD_S = 120.0
"""Against a hung ``redis-cli`` only; no test asserts how long a move takes."""


def lowest_slots(master: NodeView, count: int) -> list[int]:
    """The ``count`` lowest slots ``master`` serves: those ``redis-cli --cluster reshard``
    takes from a source first (it walks a source's slots in ascending order)."""
    slots: list[int] = []
    for start, end in master.slots:
        slots.extend(range(start, end + 1))
        if len(slots) >= count:
            break
    return slots[:count]


def slot_count(master: NodeView) -> int:
    return sum(end - start + 1 for start, end in master.slots)


def _agreed_map(cluster: RedisClusterProcesses, port: int) -> dict[str, tuple[tuple[int, int],
                                                                            ...]] | None:
    """Node ``port``'s map (master id -> its slots), or None while it has a slot open
    (``[slot->-id]``/``[slot-<-id]`` in ``CLUSTER NODES``: a move not finished)."""
    with cluster.client(port) as client:
        text = str(client.execute_command("CLUSTER", "NODES"))
    if "[" in text:
        return None
    return {node.node_id: node.slots for node in cluster.view(port)
            if node.role == "master" and node.slots}


def settled(cluster: RedisClusterProcesses) -> bool:
    """Every running node sees the same masters serving the same slots, none open, and says
    ``cluster_state:ok``: what ``redis-cli --cluster reshard``/``rebalance`` check first."""
    maps = []
    for port in cluster.alive_ports():
        with cluster.client(port) as client:
            if "cluster_state:ok" not in str(client.execute_command("CLUSTER", "INFO")):
                return False
        seen = _agreed_map(cluster, port)
        if seen is None:
            return False
        maps.append(seen)
    return all(seen == maps[0] for seen in maps)


async def wait_settled(cluster: RedisClusterProcesses) -> None:
    await asyncio.to_thread(cluster.wait_until, lambda: settled(cluster),
                            "the nodes to agree on the slot map")


MOVING_SLOT = re.compile(rb"Moving slot (\d+) from \S+ to \S+: (\.*)")
"""What ``redis-cli --cluster reshard`` prints as it moves a slot: a line "Moving slot <n> from
<host:port> to <host:port>: " and a dot per key moved (its plan before, one indented line
per slot, does not match)."""
REBALANCED_SLOT = b"#"
"""What ``redis-cli --cluster rebalance`` prints for each slot it moved."""

Progress = Callable[[int, list[int]], None]
"""Told, as ``redis-cli`` prints them, how many more steps it made (a slot moved, and with
``reshard`` a key moved too) and the slots it began to move meanwhile (``reshard`` only:
``rebalance`` does not name them)."""


class _Output:
    """``redis-cli``'s output read so far, and the steps it reports (``feed``)."""

    def __init__(self) -> None:
        self.text = b""
        self.begun: list[int] = []  # the slots begun in the last chunk fed
        self._slot: int | None = None  # the slot of the last "Moving slot" line
        self._steps = 0  # of the whole lines read
        self._pending = b""  # the line being printed

    def feed(self, chunk: bytes) -> int:
        """The steps reported so far, ``chunk`` included."""
        self.text += chunk
        self.begun = []
        *lines, self._pending = (self._pending + chunk).split(b"\n")
        self._steps += sum(self._line(line) for line in lines)
        return self._steps + self._line(self._pending)

    def _line(self, line: bytes) -> int:
        moving = MOVING_SLOT.match(line)
        if moving is None:
            return line.count(REBALANCED_SLOT)
        if int(moving[1]) != self._slot:  # (the line being printed is read again)
            self._slot = int(moving[1])
            self.begun.append(self._slot)
        return 1 + len(moving[2])


async def run_cli(cluster: RedisClusterProcesses, *args: str,
                  progress: Progress | None = None, settle_first: bool = True) -> str:
    """``redis-cli --cluster <args>`` once the nodes agree (``settled``; not with
    ``settle_first=False``), awaited as a subprocess; its output. ``progress`` is told of its
    steps as it prints them. Raises if it fails (its output in the message); returns once
    the nodes agree again on the map it made."""
    if settle_first:
        await wait_settled(cluster)
    process = await asyncio.create_subprocess_exec(
        cluster.cli, "--cluster", *args, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT)
    assert process.stdout is not None
    output = _Output()
    done = 0
    async with asyncio.timeout(CLI_GUARD_S):
        while chunk := await process.stdout.read(4096):
            now = output.feed(chunk)
            if progress is not None:
                progress(now - done, output.begun)
            done = now
        await process.wait()
    text = output.text.decode(errors="replace")
    if process.returncode != 0:
        raise RuntimeError(f"redis-cli --cluster {' '.join(args)} failed:\n{text[-4000:]}")
    await wait_settled(cluster)
    return text


async def reshard(cluster: RedisClusterProcesses, sources: list[NodeView], target: NodeView,
                  slots: int, progress: Progress | None = None) -> str:
    """``redis-cli --cluster reshard`` of ``slots`` slots from ``sources`` to ``target``
    (each source gives its share, in proportion to the slots it serves, lowest first)."""
    return await run_cli(cluster, "reshard", f"127.0.0.1:{target.port}",
                         "--cluster-from", ",".join(source.node_id for source in sources),
                         "--cluster-to", target.node_id, "--cluster-slots", str(slots),
                         "--cluster-yes", progress=progress)


async def empty(cluster: RedisClusterProcesses, master: NodeView,
                progress: Progress | None = None) -> str:
    """Every slot of ``master`` moved to the other masters, as an operator empties a master
    before removing it: ``redis-cli --cluster rebalance --cluster-weight <id>=0``."""
    return await run_cli(cluster, "rebalance", f"127.0.0.1:{master.port}",
                         "--cluster-weight", f"{master.node_id}=0", progress=progress)


async def rebalance(cluster: RedisClusterProcesses, progress: Progress | None = None,
                    use_empty_masters: bool = False) -> str:
    """``redis-cli --cluster rebalance``: every master to its even share of the slots (it
    moves nothing when none is more than 2 % off). A master serving no slot (one just
    added) takes its share only with ``use_empty_masters``
    (``--cluster-use-empty-masters``)."""
    empty = ["--cluster-use-empty-masters"] if use_empty_masters else []
    return await run_cli(cluster, "rebalance", f"127.0.0.1:{cluster.masters()[0].port}",
                         *empty, progress=progress)


async def fix(cluster: RedisClusterProcesses) -> str:
    """``redis-cli --cluster fix``, as an operator repairs a slot move cut short (a master
    lost in the middle of it): the nodes disagree about that slot and it is open on the
    importing master, so nothing waits for them to agree first. It moves the slot's keys
    back to the master that serves it and closes the slot; returns once the nodes agree."""
    return await run_cli(cluster, "fix", f"127.0.0.1:{cluster.alive_ports()[0]}",
                         "--cluster-yes", settle_first=False)
