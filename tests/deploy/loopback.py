"""deploy/bin/loopback driven from the tests: ``loopback run`` on free ports in a temp
directory (the script itself waits for every /readyz), the topology read from its
topology.json, and at the end its stdin closed, which stops everything; then nothing of it
may be left running.

``run`` stops the topology when its stdin closes, i.e. also when pytest dies (even from
SIGKILL) or a timeout signals pytest's process group, and its parts get SIGTERM should
``run`` itself be killed: no test run leaves a redis-server, node or nginx behind.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from testkit.server_process import SHORT_LEASES

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "deploy" / "bin" / "loopback"  # bash: execs python3 deploy/loopback.py
MODULE = REPO / "deploy" / "loopback.py"
STOP_GUARD_S = 150.0  # only against a hung stop; the script bounds each part's stop itself
# Short leases (as in the cluster tests) keep takeovers quick.
NODE_ENV = dict(SHORT_LEASES)


@cache
def load_script() -> ModuleType:
    """deploy/loopback.py as a module (deploy/ is no package), for its helpers."""
    loader = importlib.machinery.SourceFileLoader("deploy_loopback", str(MODULE))
    spec = importlib.util.spec_from_loader("deploy_loopback", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def run_script(*args: str, via_bash: bool = False) -> subprocess.CompletedProcess[str]:
    """``deploy/bin/loopback ARGS`` as a developer types it (``via_bash``: ``bash
    deploy/bin/loopback ARGS``)."""
    argv = ["bash", str(SCRIPT)] if via_bash else [str(SCRIPT)]
    return subprocess.run([*argv, *args], capture_output=True, text=True, cwd=REPO, timeout=300)


@dataclass
class Topology:
    run_dir: Path
    data: dict[str, Any]

    @property
    def url(self) -> str:
        return str(self.data["url"])

    @property
    def redis_url(self) -> str:
        return str(self.data["redis_url"])

    def pid(self, name: str) -> int:
        return next(int(p["pid"]) for p in self.data["parts"] if p["name"] == name)

    def node_url(self, node_id: str) -> str:
        return next(str(n["url"]) for n in self.data["nodes"] if n["id"] == node_id)

    def metrics_url(self, node_id: str) -> str:
        """The node's metrics listener (REFEREE_METRICS_LISTEN)."""
        return next(str(n["metrics_url"]) for n in self.data["nodes"] if n["id"] == node_id)

    def sigterm(self, name: str) -> None:
        os.kill(self.pid(name), signal.SIGTERM)

    def kill(self, name: str) -> None:
        """``kill -9`` of one part (its pid stays recorded: ``stop`` ends what is left)."""
        os.kill(self.pid(name), signal.SIGKILL)

    def restart(self, name: str) -> None:
        """``loopback restart NAME``: the part started again on its port."""
        restarted = run_script("restart", name, "--run-dir", str(self.run_dir))
        assert restarted.returncode == 0, restarted.stdout + restarted.stderr
        self.data = json.loads((self.run_dir / "topology.json").read_text())

    def running_parts(self) -> list[str]:
        """The parts still running, with anything left of their process groups."""
        script = load_script()
        return [str(p["name"]) for p in self.data["parts"]
                if script.running(int(p["pid"]), int(p["started"]))
                or script.group_members(int(p["pid"]), int(p["started"]))]


@contextmanager
def running(run_dir: Path) -> Iterator[Topology]:
    """``loopback run`` on free ports; on exit (also when the test failed) its stdin is
    closed, it stops everything, and the test fails if anything of it is left running."""
    process = subprocess.Popen(
        [str(SCRIPT), "run", "--run-dir", str(run_dir), "--port", "0",
         "--redis-port", "0", "--node-ports", "0,0"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        cwd=REPO, env={**os.environ, **NODE_ENV})
    assert process.stdin is not None and process.stdout is not None
    topology: Topology | None = None
    output = ""
    try:
        for line in process.stdout:  # the script bounds its start-up (START_TIMEOUT_S)
            output += line
            if line.startswith("http://"):  # printed last, once everything is up
                data = json.loads((run_dir / "topology.json").read_text())
                assert line.strip() == data["url"]
                topology = Topology(run_dir, data)
                break
        assert topology is not None, f"loopback run failed:\n{output}"
        yield topology
    finally:
        try:  # closes its stdin (what pytest dying does too), reads the rest, waits
            output += process.communicate(timeout=STOP_GUARD_S)[0]
        except subprocess.TimeoutExpired:
            process.kill()  # its parts get SIGTERM (PR_SET_PDEATHSIG)
            output += process.communicate()[0]
            run_script("stop", "--run-dir", str(run_dir))
            raise AssertionError(f"loopback run did not stop:\n{output}") from None
        assert process.returncode == 0, f"loopback run failed:\n{output}"
        if topology is not None:
            assert topology.running_parts() == [], f"left running:\n{output}"
        assert not (run_dir / "topology.json").exists(), output


def stop(topology: Topology) -> None:
    """``loopback stop``, and check that none of its processes is left."""
    stopped = run_script("stop", "--run-dir", str(topology.run_dir))
    assert stopped.returncode == 0, stopped.stderr
    assert topology.running_parts() == [], "loopback stop left processes running"
    assert not (topology.run_dir / "topology.json").exists()
