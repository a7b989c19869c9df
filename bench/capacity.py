"""What a game costs Redis and the network, counted (not timed): the capacity model's inputs.

``.venv/bin/python -m bench.capacity --games 10 --spectators 4``     (~1-2 minutes)

Starts a real ``redis-server`` (``testkit.redis_process``: append-only, ``appendfsync
always``, as production runs it) and one referee node (``testkit.server_process``), makes
``--games`` private rooms, connects two players and ``--spectators`` spectators to each, and
plays the benchmark's scripted game (``testkit.scripted_game``, driven by ``bench.loadgen``'s
``RoomDriver``: every command waits until every member holds its events; every ARO window is
passed and closed by its player, never by the clock, so the counts do not depend on timing)
to its end, or for ``--orders`` Orders. Between phases, at moments when nothing is in flight,
it reads Redis's ``INFO`` and counts:

- **Redis commands** per phase, by command (``INFO commandstats`` deltas), per game and per
  Order (an Order as ``bench.run`` counts it: one step of the script, ``end_turn`` included);
- **bytes into and out of Redis** (``INFO stats`` ``total_net_input_bytes`` /
  ``total_net_output_bytes`` deltas), per game and per Order;
- **Redis memory** per room: ``MEMORY USAGE`` (every sample) of each of the room's keys --
  state hash, events stream, the seats' answer lists, the lease -- after the setup, at
  mid-game and when the game is over (what a finished room keeps for its retention), their
  lengths and the state hash's field sizes; and ``used_memory`` deltas over the rooms;
- **websocket bytes** the clients received and sent (payloads; ``wire`` adds each frame's
  websocket header, not TCP/IP), per Order per seat and per spectator (of the ``events``
  frames the commands make; the other frames are counted apart), and a spectator's
  join (welcome and snapshot) before the game and after its last Order;
- **lease renewals**: the node's renewal round (``server.cluster.renewal.LeaseRenewal.tick``,
  the node's own code) sent ``--lease-rounds`` times from here for the node's rooms, with no
  room and with every room: Redis commands and bytes per round and per owned room. The node
  itself runs with a lease long enough that it renews nothing during the run, so the game
  phases hold no renewals (``lease_rounds_during_games`` says so, from its ``/metrics``).

The measurement's own ``INFO`` calls are taken out: their requests' and replies' bytes as
sent, what Redis counts beyond those per reading (measured on an empty window first) and the
``info`` command itself (``calibration``: a second empty window, which must come out 0).
The node's own periodic writes (its lease round, its ``/readyz`` probe) are set hours apart,
so that the game phases hold only the games' traffic; ``idle`` checks that nothing else
comes. No CPU time is measured: that needs a quiet machine (``bench.run``; the model takes
its CPU figures from ``bench/history.jsonl``, docs/capacity.md).

Prints the results as JSON and appends a ``kind: capacity`` record to the history
(``--history FILE``, ``--no-history``), like the other benches.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import msgpack
import redis
from websockets.asyncio.client import connect

from bench import loadgen
from bench.loadgen import Member, RoomDriver
from bench.measure import grown
from bench.run import git_commit, git_dirty
from bench.run_history import HISTORY, append
from protocol import codec
from protocol.constants import PROTOCOL_VERSION, WS_PATH
from protocol.messages import Hello
from server.cluster.lease import lease_key
from server.cluster.renewal import LeaseRenewal, connect_sync
from server.store.redis_store import room_keys, state_key
from testkit.redis_process import RedisProcess
from testkit.scripted_game import RULESET, TABLE, Script, plan
from testkit.server_process import METRICS_TOKEN, REPO, ServerProcess

NODE_ID = "capacity-node"
LONG_LEASE = {"REFEREE_LEASE_S": "36000", "REFEREE_LEASE_RENEW_S": "18000",
              "REFEREE_LEASE_LOOP_STALL_S": "18000", "REFEREE_ROOM_INDEX_TTL_S": "72000"}
"""The node renews at its start and then not for hours: no renewal lands in a game phase
(its room index lives longer than a round's interval, as a node requires)."""
NODE_ENV = {
    "REFEREE_NODE_ID": NODE_ID, **LONG_LEASE,
    # The /readyz probe writes a key every second by default: a node's own traffic, not the
    # games'; every few hours here (the model counts it per node, docs/capacity.md).
    "REFEREE_READY_PROBE_S": "18000",
    "REFEREE_ALLOW_FIXED_SEED": "1",  # the scripted game replays fixed dice
    "REFEREE_RATE_PER_S": "1000000", "REFEREE_RATE_BURST": "1000000",
    "REFEREE_CLIENT_ROOM_BURST": "0", "REFEREE_NODE_ROOM_BURST": "0",
    "REFEREE_MAX_UNSTARTED_ROOMS": "0", "REFEREE_INBOX_SIZE": "1024",
}
ARO_WINDOW_S = 600.0
"""Every window is closed by its player; the clock never gets there, however slow the host."""
INFO_SECTIONS = ("stats", "commandstats", "memory")
SCRIPTED = ("evalsha", "eval", "evalsha_ro", "eval_ro", "fcall", "fcall_ro")


def script_calls() -> frozenset[str]:
    """Every command name a Lua script of the server calls (``redis.call('NAME'``): Redis
    counts those in ``commandstats`` as it counts its clients' own commands."""
    pattern = re.compile(r"redis\.p?call\('([A-Za-z]+)'")
    return frozenset(name.lower() for source in (REPO / "server").rglob("*.py")
                     for name in pattern.findall(source.read_text(encoding="utf-8")))


SCRIPT_CALLS = script_calls()
ROLES = ("seat", "spectator")


# --- Redis counters -------------------------------------------------------------------------

@dataclass(frozen=True)
class Counters:
    commands: dict[str, int]
    net_in: int
    net_out: int
    used_memory: int
    request_bytes: int
    reply_bytes: int
    """This reading's own ``INFO`` request and reply on the wire (taken out of the deltas)."""


def _bulk_wire_bytes(body: bytes) -> int:
    return len(b"$%d\r\n" % len(body)) + len(body) + 2


def _command_wire_bytes(args: Iterable[str]) -> int:
    parts = [a.encode() for a in args]
    return len(b"*%d\r\n" % len(parts)) + sum(_bulk_wire_bytes(p) for p in parts)


class RedisCounters:
    """Reads ``INFO`` raw, so that its own bytes are known exactly."""

    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url)
        self.client.set_response_callback("INFO", lambda response, **_: response)
        self.residue = (0, 0)
        """Bytes in and out that Redis counts for a reading beyond its request and reply as
        sent (4 out with Redis 7.0): measured by ``calibrate``, taken out like them."""

    def calibrate(self) -> dict[str, Any]:
        """Measure ``residue`` on an empty window; the next empty window must come out 0."""
        first = self.read()
        empty = redis_delta(first, self.read())
        self.residue = (empty["bytes_in"], empty["bytes_out"])
        check = self.read()
        return {"residue_bytes_in": self.residue[0], "residue_bytes_out": self.residue[1],
                **redis_delta(check, self.read())}

    def read(self) -> Counters:
        args = ("INFO", *INFO_SECTIONS)
        raw: bytes = self.client.execute_command(*args)  # type: ignore[no-untyped-call]
        values: dict[str, str] = {}
        commands: dict[str, int] = {}
        for line in raw.decode().splitlines():
            key, sep, value = line.partition(":")
            if not sep or line.startswith("#"):
                continue
            if key.startswith("cmdstat_"):
                calls = dict(part.split("=", 1) for part in value.split(","))
                commands[key.removeprefix("cmdstat_")] = int(calls["calls"])
            else:
                values[key] = value.strip()
        return Counters(commands, int(values["total_net_input_bytes"]),
                        int(values["total_net_output_bytes"]), int(values["used_memory"]),
                        _command_wire_bytes(args) + self.residue[0],
                        _bulk_wire_bytes(raw) + self.residue[1])

    def close(self) -> None:
        self.client.close()


def redis_delta(before: Counters, after: Counters) -> dict[str, Any]:
    """What the server's clients sent and got between two readings: the reading ``before``'s
    reply and ``after``'s request are this tool's, as is every ``info`` call counted."""
    commands = {name: count for name, count in sorted(grown(after.commands,
                                                             before.commands).items())
                if name != "info"}
    requests = sum(count for name, count in commands.items()
                   if name in SCRIPTED or name not in SCRIPT_CALLS)
    return {"commands": sum(commands.values()), "requests": requests, "by_command": commands,
            "bytes_in": after.net_in - before.net_in - after.request_bytes,
            "bytes_out": after.net_out - before.net_out - before.reply_bytes,
            "used_memory_delta": after.used_memory - before.used_memory}


def per(delta: dict[str, Any], count: int) -> dict[str, float]:
    if count <= 0:
        return {}
    return {"commands": round(delta["commands"] / count, 2),
            "requests": round(delta["requests"] / count, 2),
            "bytes_in": round(delta["bytes_in"] / count, 1),
            "bytes_out": round(delta["bytes_out"] / count, 1),
            "bytes": round((delta["bytes_in"] + delta["bytes_out"]) / count, 1)}


# --- the rooms' keys ---------------------------------------------------------------------------

def room_memory(client: redis.Redis, room_id: str) -> dict[str, Any]:
    """``MEMORY USAGE`` of every key of one room, their lengths, the state hash's fields."""
    keys = {"state": state_key(room_id), "events": room_keys(room_id)[1],
            "answers:A": room_keys(room_id)[2], "answers:B": room_keys(room_id)[3],
            "lease": lease_key(room_id)}
    usage = {name: int(client.memory_usage(key, samples=0) or 0) for name, key in keys.items()}
    fields = {str(k, "utf-8") if isinstance(k, bytes) else k: len(v)
              for k, v in client.hgetall(keys["state"]).items()}
    return {"bytes": sum(usage.values()), "by_key": usage,
            "events": int(client.xlen(keys["events"])),
            "answers": int(client.llen(keys["answers:A"])) + int(client.llen(keys["answers:B"])),
            "state_fields": dict(sorted(fields.items())),
            "expires_in_s": _expiry(int(client.pttl(keys["state"])))}


def _expiry(pttl_ms: int) -> int | None:
    """Seconds until the room's keys expire; None: kept for ever (a game being played)."""
    return None if pttl_ms < 0 else round(pttl_ms / 1000)


def rooms_memory(client: redis.Redis, room_ids: list[str]) -> dict[str, Any]:
    """The mean over the rooms (they play the same game: their sizes differ little)."""
    each = [room_memory(client, room_id) for room_id in room_ids]
    first = each[0]
    return {"bytes": round(sum(e["bytes"] for e in each) / len(each)),
            "by_key": {k: round(sum(e["by_key"][k] for e in each) / len(each))
                       for k in first["by_key"]},
            "events": first["events"], "answers": first["answers"],
            "state_fields": first["state_fields"], "expires_in_s": first["expires_in_s"]}


# --- the clients ---------------------------------------------------------------------------------

WS_FIELDS = ("frames_in", "bytes_in", "wire_bytes_in", "frames_out", "bytes_out",
             "wire_bytes_out", "events_frames_in", "events_bytes_in", "events_wire_bytes_in")
"""A role's websocket counts, in this order (``Game.counts``)."""


class CountingSocket:
    """A client websocket that counts what it received and sent (payloads and frames), and
    apart the ``events`` frames: the ones each command makes. The others (a spectator
    count, a seat's presence) come when the server's pacing sends them, so which phase holds
    them depends on timing."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.received = [0, 0, 0]  # frames, payload bytes, wire bytes
        self.sent = [0, 0, 0]
        self.events = [0, 0, 0]
        self.kinds: Counter[str] = Counter()
        self.kind_bytes: Counter[str] = Counter()

    @staticmethod
    def _count(tally: list[int], payload: bytes | str, masked: bool) -> None:
        size = len(payload)
        header = 2 if size < 126 else 4 if size < 65536 else 10
        tally[0] += 1
        tally[1] += size
        tally[2] += size + header + (4 if masked else 0)

    async def send(self, data: bytes) -> None:
        self._count(self.sent, data, masked=True)  # a client masks its frames
        await self.ws.send(data)

    def __aiter__(self) -> Any:
        return self._frames()

    async def _frames(self) -> Any:
        async for frame in self.ws:
            self._count(self.received, frame, masked=False)
            kind = msgpack.unpackb(frame, raw=False)["type"]
            self.kinds[kind] += 1
            self.kind_bytes[kind] += len(frame)
            if kind == "events":
                self._count(self.events, frame, masked=False)
            yield frame

    async def close(self) -> None:
        await self.ws.close()


class Game:
    """One room: its driver (``bench.loadgen``) and its members' counting sockets."""

    def __init__(self, index: int, script: Script) -> None:
        self.driver = RoomDriver(index, script, 0)
        self.sockets: dict[str, list[CountingSocket]] = {role: [] for role in ROLES}
        self.room_id = ""
        self.readers: list[asyncio.Task[None]] = []

    async def join(self, base: str, room_id: str, tokens: dict[str, str],
                   spectators: int) -> None:
        self.room_id = room_id
        url = "ws" + base.removeprefix("http") + WS_PATH + "?" + urlencode({"room": room_id})
        names = [("A", tokens["A"]), ("B", tokens["B"])] + [(f"s{n}", None)
                                                             for n in range(spectators)]
        for name, token in names:
            ws = CountingSocket(await connect(url, max_size=None, compression=None,
                                              ping_interval=None, proxy=None))
            member = Member(self.driver, name, ws)  # type: ignore[arg-type]
            await ws.send(codec.encode(Hello(PROTOCOL_VERSION, room_id, token)))
            self.driver.members.append(member)
            if token is not None:
                self.driver.players[name] = member
            self.sockets["seat" if token else "spectator"].append(ws)
            self.readers.append(asyncio.create_task(member.read(True)))
        await self.driver.until(lambda: all(m.version >= 0 for m in self.driver.members))

    async def late_spectator(self, base: str) -> int:
        """A spectator joining now: the payload bytes it receives until it holds the room
        (the welcome, then the snapshot). Not one of the room's members for the driver."""
        url = "ws" + base.removeprefix("http") + WS_PATH + "?" + urlencode({"room": self.room_id})
        ws = await connect(url, max_size=None, compression=None, ping_interval=None, proxy=None)
        received = 0
        try:
            await ws.send(codec.encode(Hello(PROTOCOL_VERSION, self.room_id, None)))
            async with asyncio.timeout(loadgen.GUARD_S):
                while True:
                    frame = await ws.recv()
                    received += len(frame)
                    if msgpack.unpackb(frame, raw=False)["type"] == "snapshot":
                        return received
        finally:
            await ws.close()

    async def setup(self) -> None:
        for step in self.driver.script.setup:
            await self.driver.command(step.side, step.body)

    async def orders(self, until: int) -> None:
        while self.driver.next_order < until:
            await self.driver.play_order(timeout_every=0)

    def counts(self) -> dict[str, list[int]]:
        """Per role: the ``WS_FIELDS``."""
        return {role: [sum(s.received[i] for s in socks) for i in range(3)]
                + [sum(s.sent[i] for s in socks) for i in range(3)]
                + [sum(s.events[i] for s in socks) for i in range(3)]
                for role, socks in self.sockets.items()}

    def kinds(self) -> dict[str, Counter[str]]:
        """Per role: the frames received, by type."""
        return {role: sum((s.kinds for s in socks), Counter())
                for role, socks in self.sockets.items()}

    async def close(self) -> None:
        self.driver.stopping = True
        await asyncio.gather(*(s.close() for socks in self.sockets.values() for s in socks),
                             return_exceptions=True)
        for reader in self.readers:
            reader.cancel()


def ws_counts(games: list[Game]) -> dict[str, list[int]]:
    total = {role: [0] * len(WS_FIELDS) for role in ROLES}
    for game in games:
        for role, values in game.counts().items():
            total[role] = [a + b for a, b in zip(total[role], values, strict=True)]
    return total


def ws_delta(before: dict[str, list[int]], after: dict[str, list[int]], members: dict[str, int],
             orders: int) -> dict[str, Any]:
    """Per role: what the role's sockets received and sent in the phase, and per Order per
    socket of that role, of the ``events`` frames (``orders``: the phase's Orders in all
    rooms; ``members``: each room's sockets of each role)."""
    out: dict[str, Any] = {}
    for role in ROLES:
        d = [b - a for a, b in zip(before[role], after[role], strict=True)]
        entry: dict[str, Any] = dict(zip(WS_FIELDS, d, strict=True))
        if orders and members[role]:
            sockets = orders * members[role]
            entry["per_order_per_socket"] = {
                "frames_in": round(d[6] / sockets, 2),
                "bytes_in": round(d[7] / sockets, 1),
                "wire_bytes_in": round(d[8] / sockets, 1),
                "bytes_out": round(d[4] / sockets, 1)}
        out[role] = entry
    return out


# --- the run -------------------------------------------------------------------------------------

async def metric(base: str, name: str) -> float:
    """One sample of the node's /metrics (summed over its labels)."""
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        text = (await http.get("/metrics", headers={
            "Authorization": f"Bearer {METRICS_TOKEN}"})).text
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(name) and not line.startswith("#")
               and line[len(name)] in "{ ")


async def settled(base: str) -> None:
    """Until the node's start-up writes are behind it: its readiness probe's first write
    (``/readyz`` answers 200) and its first lease round (``/metrics``), so that neither
    lands in a measured window."""
    async with httpx.AsyncClient(base_url=base, timeout=30) as http, asyncio.timeout(60):
        while (await http.get("/readyz")).status_code != 200 \
                or await metric(base, "referee_lease_rounds_total") < 1:
            await asyncio.sleep(0.05)


async def create_rooms(base: str, count: int, seed: int) -> list[tuple[str, dict[str, str]]]:
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        rooms = []
        for _ in range(count):
            response = await http.post("/api/rooms", json={
                "ruleset": RULESET, "table": TABLE, "seed": seed,
                "aro_window_s": ARO_WINDOW_S, "visibility": "private"})
            response.raise_for_status()
            data = response.json()
            rooms.append((data["room"], {s: data["seats"][s]["token"] for s in ("A", "B")}))
        return rooms


def lease_rounds(url: str, rooms: list[str], rounds: int, counters: RedisCounters
                 ) -> dict[str, Any]:
    """The node's renewal round for no room and for every room, ``rounds`` times each."""
    client = redis.Redis.from_url(url)
    owned = [(room, int(client.hget(state_key(room), "fence") or 0)) for room in rooms]
    client.close()
    renewal = LeaseRenewal(connect_sync(url, 5.0), NODE_ID,
                           int(float(LONG_LEASE["REFEREE_LEASE_S"]) * 1000),
                           room_index_ttl_ms=int(float(LONG_LEASE["REFEREE_ROOM_INDEX_TTL_S"])
                                                 * 1000))
    renewal.tick([], [], [])  # loads the script (once per connection), not measured
    out: dict[str, Any] = {}
    try:
        for name, held in (("no_room", []), ("every_room", owned)):
            before = counters.read()
            for _ in range(rounds):
                report = renewal.tick(held, [], [])
                if report.lost_leases:
                    raise RuntimeError(f"lease renewal lost {len(report.lost_leases)} rooms")
            out[name] = per(redis_delta(before, counters.read()), rounds)
    finally:
        renewal.close()
    base, full = out["no_room"], out["every_room"]
    out["per_room_per_round"] = {k: round((full[k] - base[k]) / len(rooms), 2) for k in base}
    out["rounds"] = rounds
    return out


async def measure(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    loadgen.TALLY = loadgen.Tally()  # (the drivers count their commands and errors there)
    script = plan(args.seed)
    orders = len(script.orders) if args.orders is None else min(args.orders, len(script.orders))
    finished = orders == len(script.orders)
    redis_process = RedisProcess(workdir / "redis")
    redis_process.start()
    node = ServerProcess(redis_process.url, env=NODE_ENV)
    games = [Game(i, script) for i in range(args.games)]
    try:
        await node.start()
        await settled(node.base)
        counters = RedisCounters(redis_process.url)
        client = redis.Redis.from_url(redis_process.url)
        result: dict[str, Any] = {"phases": {}, "memory": {}}
        phases = result["phases"]
        members = {"seat": 2, "spectator": args.spectators}  # per room

        result["calibration"] = counters.calibrate()
        first = counters.read()
        leases_before = await metric(node.base, "referee_lease_rounds_total")

        idle_before = counters.read()
        rooms = await create_rooms(node.base, args.games, args.seed)
        after = counters.read()
        phases["create"] = {"redis": redis_delta(idle_before, after)}
        phases["create"]["redis_per_room"] = per(phases["create"]["redis"], args.games)

        ws_before = ws_counts(games)
        before = counters.read()
        for game, (room_id, tokens) in zip(games, rooms, strict=True):
            await game.join(node.base, room_id, tokens, args.spectators)
        after = counters.read()
        phases["join"] = {"redis": redis_delta(before, after),
                          "websocket": ws_delta(ws_before, ws_counts(games), members, 0)}
        phases["join"]["redis_per_room"] = per(phases["join"]["redis"], args.games)

        async def phase(name: str, work: Any, count: int, *, per_order: bool) -> None:
            ws_start = ws_counts(games)
            start = counters.read()
            await asyncio.gather(*(work(game) for game in games))
            delta = redis_delta(start, counters.read())
            errors = len(loadgen.TALLY.errors)
            if errors:
                raise RuntimeError(f"{name}: {loadgen.TALLY.errors[:3]}")
            phases[name] = {"redis": delta, "redis_per_game": per(delta, args.games),
                            "websocket": ws_delta(ws_start, ws_counts(games), members,
                                                  count if per_order else 0)}
            if count:
                phases[name]["redis_per_" + ("order" if per_order else "command")] = \
                    per(delta, count)

        await phase("setup", lambda g: g.setup(), len(script.setup) * args.games,
                    per_order=False)
        result["memory"]["after_setup"] = rooms_memory(client, [g.room_id for g in games])
        half = orders // 2
        await phase("orders_first_half", lambda g: g.orders(half), half * args.games,
                    per_order=True)
        result["memory"]["mid_game"] = rooms_memory(client, [g.room_id for g in games])
        await phase("orders_second_half", lambda g: g.orders(orders),
                    (orders - half) * args.games, per_order=True)
        result["memory"]["finished" if finished else "at_end"] = rooms_memory(
            client, [g.room_id for g in games])
        whole = _sum_phases(phases["orders_first_half"], phases["orders_second_half"])
        phases["orders"] = {"redis": whole["redis"], "redis_per_game": per(whole["redis"],
                                                                           args.games),
                            "redis_per_order": per(whole["redis"], orders * args.games),
                            "websocket": ws_delta(whole["ws"][0], whole["ws"][1], members,
                                                  orders * args.games)}
        game_total = _sum_phases(phases["join"], phases["setup"], phases["orders"])
        result["per_game"] = per(
            {k: v + phases["create"]["redis"][k] if k != "by_command" else v
             for k, v in game_total["redis"].items()}, args.games)
        if args.spectators:  # a spectator's welcome and snapshot (it gets no other)
            crowd = [s for game in games for s in game.sockets["spectator"]]
            phases["join"]["spectator_join_bytes_in"] = round(sum(
                s.kind_bytes["welcome"] + s.kind_bytes["snapshot"] for s in crowd) / len(crowd))
        kinds = [game.kinds() for game in games]
        result["frames_by_type"] = {role: dict(sum((k[role] for k in kinds), Counter()))
                                    for role in ROLES}
        result["used_memory_per_room"] = round(
            (counters.read().used_memory - first.used_memory) / args.games)

        idle_start = counters.read()
        await asyncio.sleep(args.idle_s)  # the node alone, nothing played: its own traffic
        result["idle"] = {"redis": redis_delta(idle_start, counters.read())}
        result["idle"]["commands_per_s"] = round(result["idle"]["redis"]["commands"]
                                                 / args.idle_s, 2)
        result["lease_rounds_during_games"] = (
            await metric(node.base, "referee_lease_rounds_total") - leases_before)
        result["lease"] = lease_rounds(redis_process.url, [g.room_id for g in games],
                                       args.lease_rounds, counters)
        # Last: its frames to the others, and its Redis writes, are no game's.
        late = [await game.late_spectator(node.base) for game in games]
        result["spectator_join_bytes_at_end"] = round(sum(late) / len(late))
        result["orders"] = orders
        result["game_orders"] = len(script.orders)
        result["finished"] = finished
        result["commands_per_game"] = round(loadgen.TALLY.commands / args.games, 1)
        counters.close()
        client.close()
        return result
    finally:
        for game in games:
            await game.close()
        await node.stop()
        redis_process.stop()


def _sum_phases(*phases: dict[str, Any]) -> dict[str, Any]:
    redis_sum: dict[str, Any] = {"commands": 0, "requests": 0, "by_command": {}, "bytes_in": 0,
                                 "bytes_out": 0, "used_memory_delta": 0}
    for phase in phases:
        for key in ("commands", "requests", "bytes_in", "bytes_out", "used_memory_delta"):
            redis_sum[key] += phase["redis"][key]
        for name, count in phase["redis"]["by_command"].items():
            redis_sum["by_command"][name] = redis_sum["by_command"].get(name, 0) + count
    out: dict[str, Any] = {"redis": redis_sum}
    ws: list[dict[str, Any]] = [p["websocket"] for p in phases if "websocket" in p]
    if len(ws) == len(phases):
        zero = {role: [0] * len(WS_FIELDS) for role in ROLES}
        summed = {role: [sum(w[role][k] for w in ws) for k in WS_FIELDS] for role in ROLES}
        out["ws"] = (zero, summed)
    return out


FIGURES = (
    "per_game/commands", "per_game/requests", "per_game/bytes_in", "per_game/bytes_out", "per_game/bytes",
    "phases/orders/redis_per_order/commands", "phases/orders/redis_per_order/requests",
    "phases/orders/redis_per_order/bytes_in",
    "phases/orders/redis_per_order/bytes_out", "phases/orders/redis_per_order/bytes",
    "phases/setup/redis_per_game/commands", "phases/setup/redis_per_game/bytes",
    "phases/create/redis_per_room/commands", "phases/create/redis_per_room/bytes",
    "phases/join/redis_per_room/commands", "phases/join/redis_per_room/bytes",
    "phases/join/spectator_join_bytes_in", "spectator_join_bytes_at_end",
    "phases/orders/websocket/seat/per_order_per_socket/frames_in",
    "phases/orders/websocket/seat/per_order_per_socket/bytes_in",
    "phases/orders/websocket/seat/per_order_per_socket/wire_bytes_in",
    "phases/orders/websocket/seat/per_order_per_socket/bytes_out",
    "phases/orders/websocket/spectator/per_order_per_socket/frames_in",
    "phases/orders/websocket/spectator/per_order_per_socket/bytes_in",
    "phases/orders/websocket/spectator/per_order_per_socket/wire_bytes_in",
    "memory/after_setup/bytes", "memory/mid_game/bytes", "memory/finished/bytes",
    "memory/at_end/bytes", "memory/finished/events", "used_memory_per_room",
    "memory/finished/expires_in_s",
    "idle/commands_per_s", "lease/per_room_per_round/commands",
    "lease/per_room_per_round/requests",
    "lease/per_room_per_round/bytes", "lease/no_room/commands", "lease/no_room/bytes",
    "lease_rounds_during_games", "calibration/commands", "calibration/bytes_in",
    "calibration/bytes_out", "orders", "game_orders", "commands_per_game",
)
"""The figures kept in the history record (paths in the results, as ``bench.run_history``)."""


def history_entry(result: dict[str, Any]) -> dict[str, Any]:
    from bench.run_history import figure

    found = {path: figure(result, path) for path in FIGURES}
    return {"date": result["date"], "commit": result["commit"],
            "uncommitted_server_changes": result["uncommitted_server_changes"],
            "kind": "capacity", "config": result["params"], "runs": 1,
            "source": "bench.capacity",
            "figures": {path: value for path, value in found.items() if value is not None},
            "host": {"cpus": os.cpu_count(), "load_average_before": result["load_before"],
                     "load_average_after": result["load_after"]}}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.capacity", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10, help="rooms played at once")
    parser.add_argument("--spectators", type=int, default=4, help="per room, beside 2 seats")
    parser.add_argument("--orders", type=int, default=None,
                        help="play only this many Orders of each game (default: to its end)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--lease-rounds", type=int, default=5)
    parser.add_argument("--idle-s", type=float, default=3.0,
                        help="seconds of the node alone at the end, its own traffic counted")
    parser.add_argument("--history", type=Path, default=HISTORY)
    parser.add_argument("--no-history", dest="history", action="store_const", const=None)
    parser.add_argument("--note", default=None, help="kept in the history record")
    args = parser.parse_args(argv)
    if args.games < 1 or args.lease_rounds < 1:
        parser.error("--games and --lease-rounds must be at least 1")
    started = datetime.datetime.now(datetime.UTC)
    load_before = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="capacity-") as tmp:
        measured = asyncio.run(measure(args, Path(tmp)))
    result = {"date": started.isoformat(timespec="seconds"), "commit": git_commit(),
              "uncommitted_server_changes": git_dirty(), "kind": "capacity",
              "params": {"games": args.games, "spectators": args.spectators,
                         "orders": args.orders, "seed": args.seed,
                         "lease_rounds": args.lease_rounds, "redis_appendfsync": "always"},
              "load_before": load_before, "load_after": [round(x, 2) for x in os.getloadavg()],
              **measured}
    print(json.dumps(result, indent=1))
    if args.history is not None:
        entry = history_entry(result)
        if args.note:
            entry["note"] = args.note
        append(entry, args.history)
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
