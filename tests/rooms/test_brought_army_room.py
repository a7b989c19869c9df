"""Brought lists and army codes through a real room (the rules core, the edge that reads codes
with the invented army data, the in-memory store): every ``choose_army`` gets exactly one
answer; bad input (random or damaged codes, documents of every wrong shape, a list naming a
trooper twice, a list over its limit) is refused with a stable reason and a message, the room
keeps going, and a good code and a good list then play on to the review of the lists."""

from __future__ import annotations

import base64
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from protocol.messages import Accepted, Command, Rejected
from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.node.army_codes import army_code_reader
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.rooms.rules_engine import RulesCoreEngine
from server.store import MemoryRoomStore, RoomSettings
from testkit.army_codes import legal_army_code, synthetic_army_data
from tests.doubles.members import RecordingMember
from tests.support.brought_lists import brought
from tests.support.games import TEST_ENTROPY

SETTINGS = Settings(freeze_gc=False, static_dir=None)
REFUSALS = {"bad_army_list", "bad_command", "no_army_data"}


class Table:
    def __init__(self, registry: RoomRegistry, room: Room) -> None:
        self.registry, self.room = registry, room
        self.seats: dict[str, RecordingMember] = {}
        self.sent = 0

    async def seat(self, side: str) -> RecordingMember:
        member = RecordingMember(Audience(side))
        await self.room.join(member, side, None)
        self.seats[side] = member
        return member

    async def send(self, side: str, body: dict[str, Any]) -> Accepted | Rejected:
        self.sent += 1
        command_id = f"c{self.sent}"
        member = self.seats[side]
        assert self.room.submit(member, side,
                                Command(command_id, self.room.seen[member.audience], body))
        return await member.answer(command_id)


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    engine = RulesCoreEngine(army_codes=army_code_reader(synthetic_army_data()))
    registry = RoomRegistry(MemoryRoomStore(), LocalFanout(), engine, SETTINGS)
    created = await registry.create(RoomSettings("n5", 60.0, "public", fixed_seed=5))
    room = await registry.open(created.meta.room_id)
    assert isinstance(room, Room)
    found = Table(registry, room)
    await found.seat("A")
    await found.seat("B")
    yield found
    await registry.shutdown()


def choose(**source: Any) -> dict[str, Any]:
    return {"type": "choose_army", "entropy": TEST_ENTROPY, **source}


def damaged_codes(seed: int) -> list[str]:
    """A good code cut short, with a byte flipped, with bytes added, and random text."""
    rng = random.Random(seed)
    raw = base64.b64decode(legal_army_code(seed))
    flipped = bytearray(raw)
    flipped[rng.randrange(len(flipped))] ^= 0xFF
    return [base64.b64encode(raw[: rng.randrange(1, len(raw))]).decode(),
            base64.b64encode(bytes(flipped)).decode(),
            base64.b64encode(raw + bytes([rng.randrange(256)])).decode(),
            base64.b64encode(rng.randbytes(rng.randrange(1, 200))).decode(),
            "".join(rng.choice("abc%=/+ \n") for _ in range(rng.randrange(1, 60)))]


def twice_named() -> dict[str, Any]:
    document = brought()
    document["entries"][3]["id"] = document["entries"][2]["id"]
    return document


def over_limit() -> dict[str, Any]:
    document = brought()
    document["points"] = 250
    return document


def deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


BAD_LISTS = [None, 3, "list", [], {}, {"entries": deep(40)}, twice_named(), over_limit(),
             {**brought(), "units": "many"}, {**brought(), "weapons": [{"id": 1}]}]


async def test_every_bad_list_or_code_gets_one_refusal_and_the_room_goes_on(table: Table) -> None:
    bodies = [choose(list=document) for document in BAD_LISTS]
    bodies += [choose(code=text) for seed in range(6) for text in damaged_codes(seed)]
    bodies += [choose(code=legal_army_code(1), army="vesper-raiders"), choose()]
    for body in bodies:
        answer = await table.send("A", body)
        assert isinstance(answer, Rejected), body
        assert answer.code in REFUSALS and answer.message, (body, answer)
    assert len(table.seats["A"].answers()) == len(bodies)  # one answer each, nothing else

    assert isinstance(await table.send("A", choose(code=legal_army_code(3, points=300))), Accepted)
    assert isinstance(await table.send("B", choose(list=brought())), Accepted)


async def test_a_refusal_names_the_first_problem(table: Table) -> None:
    answer = await table.send("A", choose(list=twice_named()))
    assert isinstance(answer, Rejected) and answer.code == "bad_army_list"
    assert answer.message.startswith("Entry id 't3' is used twice")
    answer = await table.send("A", choose(list=over_limit()))
    assert isinstance(answer, Rejected)
    assert answer.message.startswith("The troopers cost 300 points; the list allows 250.")


async def test_any_text_as_a_code_is_answered_once(table: Table) -> None:
    rng = random.Random(11)
    texts = [base64.b64encode(rng.randbytes(rng.randrange(300))).decode() for _ in range(40)]
    texts += ["".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(300)))
              for _ in range(20)]
    for text in texts:
        answer = await table.send("B", choose(code=text))
        assert isinstance(answer, Rejected) and answer.code in REFUSALS and answer.message


async def test_the_second_list_must_be_built_to_the_first_ones_points_limit(table: Table) -> None:
    assert isinstance(await table.send("A", choose(list=brought())), Accepted)  # 300 points
    answer = await table.send("B", choose(code=legal_army_code(4, points=250)))
    assert isinstance(answer, Rejected) and answer.code == "bad_army_list"
    assert "built to 250 points, your opponent's list to 300" in answer.message
    assert isinstance(await table.send("B", choose(code=legal_army_code(4, points=300))), Accepted)

