"""JSON log lines (``REFEREE_LOG_FORMAT=json``, ``server/log_format.py``): one object per
line with time, level, logger and message, and the room id on every line logged in a
room's context; in-process through a room whose engine fails, and from a real ``python -m
server`` whose every line (uvicorn's included) is JSON."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from protocol.messages import Rejected
from server.log_format import JsonFormatter, RoomFilter, configure, json_handler
from testkit.redis_process import RedisProcess, free_port
from testkit.server_process import REPO
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import settings


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """What the root logger writes as JSON lines while the test runs."""
    buffer = io.StringIO()
    handler = json_handler()
    handler.setStream(buffer)  # type: ignore[attr-defined]
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield buffer
    finally:
        root.removeHandler(handler)


def objects(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


async def test_a_line_logged_by_a_room_s_task_names_the_room_and_others_do_not(
        json_lines: io.StringIO) -> None:
    engine = FakeEngine(fail_on="act")
    async with running_server(settings(), engine) as url:
        async with httpx.AsyncClient(base_url=url) as http:
            created = (await http.post("/api/rooms", json={"ruleset": "n5"})).json()
        a = await Client.connect(url, created["room"], created["seats"]["A"]["token"])
        try:
            answer = await a.command({"type": "act", "value": 1})  # the engine raises
            assert isinstance(answer, Rejected) and answer.code == "internal_error"
        finally:
            await a.close()
    logging.getLogger("tests.outside").warning("not in a room")

    lines = objects(json_lines.getvalue())
    failed = [line for line in lines if line["logger"] == "server.rooms.room"
              and line["level"] == "ERROR"]
    assert len(failed) == 1
    assert failed[0]["room"] == created["room"]
    assert failed[0]["message"] == f"room {created['room']} failed on Submit"
    assert "RuntimeError: engine bug" in failed[0]["exception"]
    assert failed[0]["time"].endswith("+00:00") and "T" in failed[0]["time"]
    outside = [line for line in lines if line["logger"] == "tests.outside"]
    assert outside == [{"time": outside[0]["time"], "level": "WARNING",
                        "logger": "tests.outside", "message": "not in a room"}]


def test_the_formatter_writes_one_object_per_line_whatever_the_message_holds() -> None:
    record = logging.LogRecord("server.x", logging.INFO, __file__, 1, 'a "quoted"\nline %s',
                               ("é",), None)
    RoomFilter().filter(record)
    text = JsonFormatter().format(record)
    assert "\n" not in text
    assert json.loads(text)["message"] == 'a "quoted"\nline é'
    assert "room" not in json.loads(text)


def test_an_unknown_log_format_stops_the_start() -> None:
    with pytest.raises(ValueError, match="REFEREE_LOG_FORMAT"):
        configure("info", "yaml")


@pytest.mark.slow  # a python -m server process
@pytest.mark.redis
async def test_python_m_server_with_json_logs_writes_only_json_lines_and_names_the_room(
        redis_server: RedisProcess, tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_server.url, "REFEREE_FREEZE_GC": "0",
           "REFEREE_STATIC_DIR": "", "REFEREE_NODE_ID": "json-logs",
           "REFEREE_NODE_STATE_DIR": str(tmp_path), "REFEREE_LOG_FORMAT": "json",
           "REFEREE_IDLE_ROOM_S": "0.1"}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "--port", str(port), "--log-level", "info", cwd=REPO,
        env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    assert process.stdout is not None
    lines: list[str] = []

    async def until(found: str) -> dict[str, Any]:
        """Read the log until a line whose message contains ``found``."""
        assert process.stdout is not None
        async with asyncio.timeout(60):  # against a hung test only
            while True:
                raw = await process.stdout.readline()
                assert raw, "the server ended:\n" + "\n".join(lines)
                lines.append(raw.decode())
                line = json.loads(raw)
                if found in line["message"]:
                    return line  # type: ignore[no-any-return]

    try:
        started = await until("Uvicorn running on")
        assert started["logger"] == "uvicorn.error" and "room" not in started
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base) as http:
            room = (await http.post("/api/rooms", json={"ruleset": "n5"})).json()["room"]
        spectator = await Client.connect(base, room)
        await spectator.close()  # nobody left: the room's task leaves memory, and says so
        idle = await until("idle; leaving memory")
        assert idle["room"] == room and idle["logger"] == "server.rooms.room"
    finally:
        process.terminate()
        rest, _ = await process.communicate()
    lines += rest.decode().splitlines(keepends=True)
    assert process.returncode in (0, -signal.SIGTERM), "".join(lines)  # (stopped, not crashed)
    for text in lines:  # every line, the last ones of the shutdown too, is one JSON object
        line = json.loads(text)
        assert {"time", "level", "logger", "message"} <= set(line), text
