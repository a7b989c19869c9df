"""``server.cluster.turn_batches``: what is asked for in one turn of the event loop goes to
``send`` together, each asker gets its own outcome, and no asker waits for ever (the batch
failed, it was cancelled, another asker gave up)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.cluster.turn_batches import TurnBatches


class Closed(Exception):
    pass


class Sender:
    """A ``send`` that records each batch and answers each key with ``reply(key)``."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.release = asyncio.Event()
        self.release.set()
        self.arrived = asyncio.Event()  # a batch is under way

    async def __call__(self, keys: list[str], outcomes: dict[int, Any]) -> None:
        self.batches.append(keys)
        self.arrived.set()
        await self.release.wait()
        for index, key in enumerate(keys):
            outcomes[index] = ValueError(key) if key.startswith("bad") else key.upper()


async def test_what_is_asked_in_one_turn_is_sent_together_and_each_gets_its_own() -> None:
    sender = Sender()
    batches = TurnBatches(sender, Closed)
    together = await asyncio.gather(*(batches.ask(key) for key in ("a", "b", "bad-c")),
                                     return_exceptions=True)
    later = await batches.ask("d")
    assert sender.batches == [["a", "b", "bad-c"], ["d"]]
    assert together[:2] == ["A", "B"] and later == "D"
    assert isinstance(together[2], ValueError)  # its own error, for it alone


async def test_a_send_that_raises_fails_only_those_it_had_not_answered() -> None:
    async def send(keys: list[str], outcomes: dict[int, Any]) -> None:
        outcomes[0] = "first"
        raise RuntimeError("unforeseen")

    batches = TurnBatches(send, Closed)
    first, second = await asyncio.gather(batches.ask("a"), batches.ask("b"),
                                         return_exceptions=True)
    assert first == "first"
    assert isinstance(second, RuntimeError) and str(second) == "unforeseen"


async def test_an_asker_that_gives_up_leaves_the_others_of_its_batch_answered() -> None:
    sender = Sender()
    sender.release.clear()
    batches = TurnBatches(sender, Closed)
    gives_up = asyncio.create_task(batches.ask("a"))
    stays = asyncio.create_task(batches.ask("b"))
    await sender.arrived.wait()
    gives_up.cancel()
    sender.release.set()
    assert await stays == "B"
    with pytest.raises(asyncio.CancelledError):
        await gives_up


async def test_cancelled_batches_tell_their_askers_it_closed() -> None:
    sender = Sender()
    sender.release.clear()
    batches = TurnBatches(sender, Closed)
    asking = asyncio.gather(batches.ask("a"), batches.ask("b"), return_exceptions=True)
    await sender.arrived.wait()
    batches.cancel()
    assert [type(outcome) for outcome in await asking] == [Closed, Closed]
