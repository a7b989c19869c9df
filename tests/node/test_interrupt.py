"""Ctrl-C on ``python -m server`` with its embedded Redis (the quick start's serve command):
the terminal interrupts its whole foreground process group, and the node still shuts down
in order (leases released through a Redis that is still up), stops that Redis, and ends
with 130 and no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from testkit.redis_process import free_port

REPO = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_to_the_process_group_shuts_down_in_order(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    env.update(REFEREE_STORAGE="auto", REFEREE_REDIS_DIR=str(tmp_path / "redis"),
               REFEREE_FREEZE_GC="0", REFEREE_STATIC_DIR="")
    server = subprocess.Popen(
        [sys.executable, "-m", "server", "--port", str(free_port()), "--log-level", "info"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True,  # a group of its own, as a terminal's foreground job
        # ... whose Ctrl-C is not ignored: a suite started in the background by a
        # non-interactive shell inherits SIGINT ignored, and Python then keeps it so (the
        # node still shut down in order on the signal, but ended with 0, not 130).
        preexec_fn=_sigint_default)
    assert server.stdout is not None
    log = b""
    try:
        for line in server.stdout:
            log += line
            if b"Uvicorn running on" in line:
                break
        else:
            raise AssertionError(f"the server did not start:\n{log.decode(errors='replace')}")
        os.killpg(server.pid, signal.SIGINT)  # what Ctrl-C in the terminal does
        log += server.stdout.read()
        code = server.wait(timeout=60)  # a guard against a hung shutdown only
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    text = log.decode(errors="replace")
    assert code == 130, text
    assert "Traceback" not in text
    assert "leases not released" not in text
    assert "Application shutdown complete" in text
    assert not (tmp_path / "redis" / "redis.sock").exists()  # the embedded Redis stopped
