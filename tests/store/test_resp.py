"""Commands packed for the store's hot paths are byte for byte what redis-py sends."""

from __future__ import annotations

import pytest
from redis.asyncio.connection import Connection

from server.store.resp import pack_command


@pytest.mark.parametrize("args", [
    (b"EVALSHA", "f" * 40, 2, "{room:r}:state", "{room:r}:events", -3, b"", b"\x00\xff",
     "é", b"x" * 10_000),
    ("SET", "{node:n1}:alive", b"1", "PX", 5000),
    ("EVALSHA", "a" * 40, 2, "{room:é}:lease", "{room:é}:state", "n1", 12, 60_000),
    ("GET", b"\x00\r\n binary"),
    ("ZADD", "{lobby}:public", 10**15, "room"),
])
def test_commands_are_packed_as_redis_py_packs_them(args: tuple[bytes | str | int, ...]) -> None:
    assert pack_command(*args) == b"".join(Connection().pack_command(*args))


def test_a_command_is_an_array_of_bulk_strings() -> None:
    assert pack_command(b"PING") == b"*1\r\n$4\r\nPING\r\n"
    assert pack_command("GET", 7) == b"*2\r\n$3\r\nGET\r\n$1\r\n7\r\n"
