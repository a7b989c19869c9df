"""The bot's connection loop (``server/bot/seat_client.py``) with the frames fed by hand, in
the orders a loaded server sends them: the bot must never wait for a frame that is not
coming.

Implementation test: no rule section (the bot is the server's own player)."""

from __future__ import annotations

import random
from typing import Any

from protocol import codec
from protocol.messages import Command, Events, Options, OptionsRequest, Rejected, Snapshot, Sync
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


async def test_a_bot_whose_every_move_is_refused_says_why_once_and_looks_again(
        monkeypatch: Any, caplog: Any) -> None:
    """A bot that finds no move accepted holds its opponent's game: it says so once per
    version, with the last refusal, and asks for its view again rather than stop."""
    monkeypatch.setattr("server.bot.seat_client.RECONNECT_S", 0.0)
    turn, socket = _turn()
    await turn.refresh()
    await turn.receive(Snapshot(4, {"phase": "orders", "troopers": []}, None, {}))
    await turn.receive(Options(4, {"end_turn": True}))
    refused = 0
    with caplog.at_level("WARNING", logger="server.bot.seat_client"):
        while _asked(socket) == 1:
            command = socket.sent[-1]
            assert isinstance(command, Command) and refused < 50
            refused += 1
            await turn.receive(Rejected(command.id, "wrong_phase", "not now"))
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1, warnings
    assert f"none of its {refused} moves at version 4" in warnings[0]
    assert "wrong_phase 'not now'" in warnings[0]
