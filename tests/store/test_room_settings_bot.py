"""A room's practice bot (its seat and level, ``server/bot``) is part of its settings:
stored with the room in memory and in Redis (msgpack meta), with the bot seat's token, and
read back as written; a room
stored before the bot reads back with none."""

from __future__ import annotations

import uuid

import pytest

from server.store import RoomMeta, RoomSettings
from server.store.interface import RoomStore

pytestmark = pytest.mark.redis


@pytest.mark.parametrize(("bot", "level"), [("B", "sensible"), ("A", "random"), ("", "")])
async def test_the_bot_seat_and_level_are_read_back_as_they_were_stored(
        store: RoomStore, bot: str, level: str) -> None:
    settings = RoomSettings("n5", 30.0, "public", bot=bot, bot_level=level)
    token = "bot-seat-token" if bot else ""  # kept so whichever node runs the room seats it
    room = RoomMeta(f"r{uuid.uuid4().hex[:10]}", settings, "a" * 64, "b" * 64, 1_000,
                    bot_token=token)
    await store.create_room(room, b"snap-0", None)
    stored = await store.load_room(room.room_id)
    assert stored is not None and stored.meta == room
    assert (stored.meta.settings.bot, stored.meta.settings.bot_level) == (bot, level)
    assert stored.meta.bot_token == token
