"""Budgets of loop time for costly requests (issue 18, "Abuse costs little"): a seat, a
room's spectators and the node each have one; over it a socket's queries wait in its lane
while its commands and pings, and every other room, go on."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from protocol.constants import ProtocolReason
from protocol.messages import (
    Accepted,
    HistoryRequest,
    Options,
    OptionsRequest,
    Ping,
    Pong,
    Rejected,
    Snapshot,
)
from server.config import Settings
from server.transport.endpoint import MESSAGE_TOKENS
from server.transport.work_budget import SWEEP_AT, WorkBudget, WorkBudgets
from server.transport.work_lane import LANE_LIMIT, MAX_CHARGE_S, Work, WorkLane
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import create_room, settings

# --- the budgets, on a clock of the test's own ----------------------------------------


def test_a_budget_in_debt_says_how_long_until_it_is_repaid() -> None:
    budget = WorkBudget(rate=0.05, burst=0.3, now=0.0)
    assert budget.wait_s(0.0) == 0.0
    budget.charge(0.25, 0.0)
    assert budget.wait_s(0.0) == 0.0, "some budget is left: the next request may run"
    budget.charge(0.1, 0.0)  # 0.05 s in debt
    assert budget.wait_s(0.0) == pytest.approx(1.0)
    assert budget.wait_s(0.5) == pytest.approx(0.5)
    assert budget.wait_s(1.001) == 0.0
    assert not budget.full(1.0) and budget.full(7.0)


def budgets(**overrides: Any) -> WorkBudgets:
    return WorkBudgets(Settings(**overrides), now=0.0)  # type: ignore[arg-type]


def test_a_seats_budget_outlives_its_connection_and_spectators_share_one() -> None:
    node = budgets()
    seat_a = node.take("r1", "A", 0.0)
    assert len(seat_a) == 2 and seat_a[1] is node.node, "the seat's and the node's"
    seat_a[0].charge(1.0, 0.0)
    node.give_back("r1", "A", 0.0)  # the socket leaves in debt...
    again = node.take("r1", "A", 0.0)
    assert again[0] is seat_a[0] and again[0].wait_s(0.0) > 0, "...and finds its debt"
    assert node.take("r1", "B", 0.0)[0] is not seat_a[0]
    one, two = node.take("r1", None, 0.0), node.take("r1", None, 0.0)
    assert one[0] is two[0], "a room's spectators draw on one budget"
    assert node.take("r2", None, 0.0)[0] is not one[0]


def test_the_budgets_of_rooms_nobody_uses_are_forgotten_once_whole() -> None:
    node = budgets()
    for n in range(SWEEP_AT * 3):
        node.take(f"room-{n}", "A", 0.0)
        node.give_back(f"room-{n}", "A", 0.0)
    assert len(node) < SWEEP_AT, "whole budgets of rooms nobody is in are dropped"
    in_debt = node.take("busy", "A", 0.0)[0]
    in_debt.charge(10.0, 0.0)
    node.give_back("busy", "A", 0.0)
    for n in range(SWEEP_AT * 2):
        node.take(f"other-{n}", "B", 1.0)
        node.give_back(f"other-{n}", "B", 1.0)
    assert node.take("busy", "A", 1.0)[0] is in_debt, "a budget in debt is kept"


def test_budgets_set_to_zero_are_none() -> None:
    node = budgets(work_seat_ms_per_s=0.0, work_spectators_ms_per_s=0.0, work_node_share=0.0)
    assert node.take("r", "A", 0.0) == () and node.take("r", None, 0.0) == ()


def test_the_queries_cost_more_of_the_rate_limit_than_commands() -> None:
    costs = {kind.__name__: tokens for kind, tokens in MESSAGE_TOKENS.items()}
    assert costs["Command"] == costs["Ping"] == costs["Measure"] == 1.0
    assert costs["OptionsRequest"] == costs["HistoryRequest"] == costs["Sync"] == 2.0


# --- one socket's lane ------------------------------------------------------------------


async def test_a_lane_runs_at_once_within_budget_then_in_order_as_it_allows() -> None:
    """Its budget refills fast here (a millisecond of debt is repaid in a millisecond): the
    lane's requests run in order once it is repaid; a second ``options`` waiting is the
    first's answer too."""
    budget = WorkBudget(rate=1.0, burst=0.0, now=0.0)
    lane = WorkLane((budget,))
    ran: list[str] = []
    done = asyncio.get_running_loop().create_future()
    lane.push(Work("options", lambda: ran.append("options-1"), floor_s=0.001, merges=True))
    assert ran == ["options-1"] and lane.waited == 0, "within budget: at once, in the reader"
    lane.push(Work("measure", lambda: ran.append("measure")))
    lane.push(Work("options", lambda: ran.append("options-2"), merges=True))
    lane.push(Work("options", lambda: ran.append("options-3"), merges=True))
    lane.push(Work("history", lambda: (ran.append("history"), done.set_result(None))))
    assert ran == ["options-1"], "in debt: they wait"
    await done
    assert ran == ["options-1", "measure", "options-2", "history"]
    assert lane.ran == 5 and lane.waited == 4
    lane.close()


async def test_one_request_is_charged_at_most_max_charge_s() -> None:
    """A request measured longer than anything a seat may ask for met a collection or a
    starved process: charged whole, a player's next request would wait for seconds."""
    budget = WorkBudget(rate=1.0, burst=0.0, now=time.perf_counter())
    lane = WorkLane((budget,))
    lane.run(Work("history", lambda: None, floor_s=30.0))
    assert 0.0 < budget.wait_s(time.perf_counter()) <= MAX_CHARGE_S
    lane.close()


async def test_a_full_lane_refuses_one_more_but_always_takes_an_options_request() -> None:
    budget = WorkBudget(rate=1e-9, burst=0.0, now=0.0)  # never repaid within the test
    lane = WorkLane((budget,))
    ran: list[str] = []
    lane.push(Work("history", lambda: ran.append("history"), floor_s=0.001))
    assert lane.push(Work("options", lambda: ran.append("options"), merges=True))
    for _ in range(LANE_LIMIT - 1):
        assert lane.push(Work("measure", lambda: ran.append("measure")))
    assert not lane.push(Work("measure", lambda: ran.append("measure"))), "full: refused"
    assert lane.push(Work("options", lambda: ran.append("options"), merges=True)), \
        "the options request waiting answers this one"
    lane.run(Work("sync", lambda: ran.append("sync")))  # what the endpoint does for a sync
    assert ran == ["history", "sync"]
    lane.close()


async def test_a_failing_request_is_logged_and_the_lane_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    lane = WorkLane((WorkBudget(1.0, 1.0, 0.0),))
    ran: list[str] = []

    def fails() -> None:
        raise RuntimeError("boom")

    assert lane.push(Work("measure", fails))
    assert lane.push(Work("options", lambda: ran.append("options")))
    assert ran == ["options"]
    assert "measure request failed" in caplog.text


# --- over real websockets ---------------------------------------------------------------

NEVER_REPAID = dict(work_seat_ms_per_s=1e-6, work_seat_burst_ms=0.0)
"""A seat's budget that one ``options`` puts in debt for hours: what waits behind it stays
waiting for the whole test (no timing involved)."""


class Rooms:
    def __init__(self, base: str, rooms: list[dict[str, Any]]) -> None:
        self.base = base
        self.rooms = rooms

    async def seat(self, room: int, side: str) -> Client:
        info = self.rooms[room]
        client = await Client.connect(self.base, info["room"], info["seats"][side]["token"])
        await client.until(Snapshot)
        return client


async def serve(**overrides: Any) -> AsyncIterator[Rooms]:
    async with running_server(settings(**overrides), FakeEngine()) as base:
        async with httpx.AsyncClient(base_url=base) as http:
            rooms = [await create_room(http), await create_room(http)]
        yield Rooms(base, rooms)


async def options_then_pong(client: Client, nonce: int) -> list[Options]:
    """Ask for options, then ping: the pong's arrival says the socket was read past the
    request; returns the options frames that arrived before it."""
    before = len(client.of(Options))
    await client.send(OptionsRequest())
    await client.send(Ping(nonce))
    await client.until(Pong, lambda p: p.nonce == nonce)
    return client.of(Options)[before:]


async def test_a_seat_over_its_budget_waits_while_its_commands_and_other_rooms_go_on() -> None:
    async for rooms in serve(**NEVER_REPAID):
        flooder = await rooms.seat(0, "A")
        assert len(await options_then_pong(flooder, 1)) == 1, "the first is within budget"
        assert await options_then_pong(flooder, 2) == [], "the next waits; pings do not"
        answer = await flooder.command({"type": "act", "value": 1})
        assert isinstance(answer, Accepted), "nor do commands"
        other_room = await rooms.seat(1, "A")
        assert len(await options_then_pong(other_room, 3)) == 1, "another room is served"
        same_room_b = await rooms.seat(0, "B")
        assert len(await options_then_pong(same_room_b, 4)) == 1, "so is the other seat"


async def test_connecting_again_gives_a_seat_no_fresh_budget() -> None:
    async for rooms in serve(**NEVER_REPAID):
        first = await rooms.seat(0, "A")
        assert len(await options_then_pong(first, 1)) == 1
        await first.close()
        again = await rooms.seat(0, "A")
        assert await options_then_pong(again, 2) == [], "still in debt"


async def test_the_node_budget_holds_every_rooms_queries_but_no_command() -> None:
    async for rooms in serve(work_node_share=1e-9, work_node_burst_ms=0.0):
        flooder = await rooms.seat(0, "A")
        assert len(await options_then_pong(flooder, 1)) == 1
        bystander = await rooms.seat(1, "A")
        assert await options_then_pong(bystander, 2) == [], "the node's budget is spent"
        answer = await bystander.command({"type": "act", "value": 1})
        assert isinstance(answer, Accepted), "commands never wait for it"


async def test_a_query_beyond_a_full_lane_is_refused_by_its_id() -> None:
    async for rooms in serve(**NEVER_REPAID, rate_burst=1000):
        seat = await rooms.seat(0, "A")
        assert len(await options_then_pong(seat, 1)) == 1  # the seat's budget is spent
        for n in range(LANE_LIMIT):
            await seat.send(HistoryRequest(f"h{n}", 1))
        await seat.send(HistoryRequest("one-too-many", 1))
        refused = await seat.until(Rejected)
        assert (refused.id, refused.code) == ("one-too-many", ProtocolReason.ROOM_BUSY)


async def test_a_flood_of_options_at_one_version_costs_one_computation() -> None:
    """``Room.options_frame`` (d57bd6e): every request at a version gets the frame made
    for the first; a new version makes it again."""
    engine = FakeEngine()
    async with running_server(settings(), engine) as base, \
            httpx.AsyncClient(base_url=base) as http:
        info = await create_room(http)
        seat = await Client.connect(base, info["room"], info["seats"]["A"]["token"])
        await seat.until(Snapshot)
        for _ in range(10):
            await seat.send(OptionsRequest())
        await seat.send(Ping(1))
        await seat.until(Pong)
        frames = seat.of(Options)
        assert len(frames) == 10 and all(frame == frames[0] for frame in frames)
        assert engine.calls.count("A:options") == 1
        assert isinstance(await seat.command({"type": "act", "value": 1}), Accepted)
        assert len(await options_then_pong(seat, 2)) == 1
        assert engine.calls.count("A:options") == 2, "a new version computes them again"
