"""The bot's connection loop (``server/bot/seat_client.py``) with the frames fed by hand, in
the orders a loaded server sends them: the bot must never wait for a frame that is not
coming.

Implementation test: no rule section (the bot is the server's own player)."""

from __future__ import annotations

import random
from typing import Any

from protocol import codec
from protocol.messages import Events, Options, OptionsRequest, Snapshot, Sync
from server.bot.fruitless import Fruitless
from server.bot.seat_client import BotSeat, Pacer, _Turn


class _Socket:
    """Records what the bot sends, decoded."""

    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def send(self, frame: bytes) -> None:
        self.sent.append(codec.decode_client(frame))


def _turn() -> tuple[_Turn, _Socket]:
    socket = _Socket()
    seat = BotSeat("ws://127.0.0.1:1", "room", "A", "token", "random", 1000.0, 1000)
    return _Turn(socket, seat, random.Random(1), Pacer(1000.0, 1000), Fruitless()), socket  # type: ignore[arg-type]


def _asked(socket: _Socket) -> int:
    """How many times the bot asked for its view (a ``sync`` and an ``options`` each)."""
    syncs = sum(isinstance(m, Sync) for m in socket.sent)
    assert syncs == sum(isinstance(m, OptionsRequest) for m in socket.sent)
    return syncs


async def test_options_older_than_the_snapshot_are_asked_for_again() -> None:
    """Seen under load: the options (version 3) came before an ``events`` frame (version 4)
    and the snapshot after it (version 4). Both answers are in, the view is current, the
    options are not: the bot asks again rather than wait for options that never come."""
    turn, socket = _turn()
    await turn.refresh()
    assert _asked(socket) == 1
    await turn.receive(Options(3, {}))
    await turn.receive(Events(4, [{"type": "initiative_chosen"}], None))
    await turn.receive(Snapshot(4, {"phase": "initiative"}, None, {}))
    assert _asked(socket) == 2


async def test_answers_of_one_version_decide_without_asking_again() -> None:
    turn, socket = _turn()
    await turn.refresh()
    await turn.receive(Snapshot(4, {"phase": "initiative"}, None, {}))
    await turn.receive(Options(4, {}))
    assert _asked(socket) == 1
