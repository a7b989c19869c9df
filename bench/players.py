"""The two players of the broadcast bench: one room's scripted game, one command at a time.

``python -m bench.players --target referee|baseline --urls URL1,URL2 --room R ...``

Against the referee, player A connects to the first node (the room's owner) and player B
to the second (its commands and frames go through the relay), and they play the game of
``testkit.scripted_game``: the setup, then its Orders command by command (each ARO window passed
and closed by the reactive player, never left to the clock). Against the baseline both
connect to the first process and each command is one frame of ``--frame-size`` bytes
that the baseline relays to every other socket of the room.

Phases, stepped by the orchestrator as ``bench.loadgen``'s are: ``setup`` (referee only;
not measured), ``joins`` (one command every ``--join-pace`` s until the orchestrator says
``stop``: the players' latency while the crowd joins) and ``events`` (``--events``
commands, one every ``--pace`` s). A command's latency is from its send to the moment both
players hold its version; its send time (``time.time``, the clock the spectator
processes stamp arrivals with) is kept for the event-to-last-spectator measure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

import uvloop
from websockets.asyncio.client import connect

from bench import loadgen
from bench.loadgen import Member, RoomDriver, Tally
from protocol import codec
from protocol.constants import PROTOCOL_VERSION, WS_PATH
from protocol.messages import Hello
from testkit.scripted_game import Send, plan

Step = tuple[str, dict[str, Any], bool]  # side, command body, whether "window closed" is ok


def game_steps(seed: int) -> tuple[list[Step], list[Step]]:
    """(setup, the Orders flattened to single commands)."""
    script = plan(seed)
    setup = [(s.side, s.body, False) for s in script.setup]
    steps: list[Step] = []
    for order in script.orders:
        for step in order:
            if isinstance(step, Send):
                steps.append((step.side, step.body, False))
                continue
            if step.trooper:
                steps.append((step.side, {"type": "pass_aro", "trooper": step.trooper}, True))
            steps.append((step.side, {"type": "close_aro_window", "order": step.order,
                                      "step": step.step}, True))
    return setup, steps


async def _next_line() -> str:
    line: str = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    return line.strip()


def _done(phase: str) -> None:
    print(json.dumps({"done": phase}), flush=True)


class Players:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.referee = args.target == "referee"
        self.room = RoomDriver(0, plan(args.seed), args.frame_size)
        self.setup, self.steps = game_steps(args.seed)
        self.next_step = 0
        self.readers: list[asyncio.Task[None]] = []
        self.results: dict[str, Any] = {}

    async def connect(self) -> None:
        urls = self.args.urls.split(",")
        for n, side in enumerate(("A", "B")):
            base = urls[n % len(urls)] if self.referee else urls[0]
            ws_base = "ws" + base.removeprefix("http")
            url = ws_base + (WS_PATH if self.referee else f"/{self.args.room}")
            ws = await connect(url, max_size=None, ping_interval=None, compression=None,
                               open_timeout=60)
            member = Member(self.room, side, ws)
            if self.referee:
                token = self.args.token_a if side == "A" else self.args.token_b
                await ws.send(codec.encode(Hello(PROTOCOL_VERSION, self.args.room, token)))
            self.room.members.append(member)
            self.room.players[side] = member
            self.readers.append(asyncio.create_task(member.read(self.referee)))
        if self.referee:
            await self.room.until(lambda: all(m.version >= 0 for m in self.room.members))

    async def one(self) -> bool:
        """Play the next command; False when the game has none left."""
        if self.next_step >= len(self.steps):
            return False
        side, body, stale_ok = self.steps[self.next_step]
        self.next_step += 1
        try:
            if self.referee:
                await self.room.command(side, body, stale_ok=stale_ok)
            else:
                await self.room.relay(side)
        except (RuntimeError, TimeoutError) as error:
            # Counted (an overloaded node may answer late or not at all), not fatal: the
            # crowd's figures are still worth having.
            loadgen.TALLY.errors.append(f"{body.get('type', 'frame')}: {error!r}")
        return True

    async def phase(self, name: str, work: Any) -> None:
        loadgen.TALLY = Tally()
        await work()
        loadgen.TALLY.ended = time.time()
        self.results[name] = loadgen.TALLY.result()
        _done(name)

    async def play_setup(self) -> None:
        for side, body, _ in self.setup:
            await self.room.command(side, body)

    async def until_stopped(self) -> None:
        """One command every --join-pace s until the orchestrator's ``stop``."""
        stop = asyncio.ensure_future(_next_line())
        next_at = time.monotonic()
        while not stop.done():
            if not await self.one():
                break
            next_at += self.args.join_pace
            await asyncio.wait({stop}, timeout=max(0.0, next_at - time.monotonic()))
        await stop

    async def paced(self) -> None:
        next_at = time.monotonic()
        for _ in range(self.args.events):
            if not await self.one():
                break
            next_at += self.args.pace
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))

    async def run(self) -> None:
        await self.connect()
        if self.referee:
            await self.phase("setup", self.play_setup)
        else:
            _done("setup")
        if await _next_line() != "go":
            return
        own = loadgen.watch_own_process()  # (its lateness is in each phase's tally)
        await self.phase("joins", self.until_stopped)
        if await _next_line() != "go":
            return
        await self.phase("events", self.paced)
        if await _next_line() == "go":  # the crowd leaves: commands as while it joined
            await self.phase("leaves", self.until_stopped)
            await _next_line()
        with open(self.args.out, "w") as handle:
            json.dump(self.results, handle)
        own.cancel()
        self.room.stopping = True
        await asyncio.gather(*(m.ws.close() for m in self.room.members), return_exceptions=True)
        for reader in self.readers:
            reader.cancel()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.players")
    parser.add_argument("--target", choices=("referee", "baseline"), required=True)
    parser.add_argument("--urls", required=True)
    parser.add_argument("--room", required=True)
    parser.add_argument("--token-a")
    parser.add_argument("--token-b")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--frame-size", type=int, default=200)
    parser.add_argument("--join-pace", type=float, default=0.2)
    parser.add_argument("--pace", type=float, default=0.5)
    parser.add_argument("--events", type=int, default=60)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(Players(args).run())


if __name__ == "__main__":
    main()
