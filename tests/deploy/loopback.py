"""deploy/bin/loopback driven from the tests: start the topology on free ports in a temp
directory (the script itself waits for every /healthz), read its topology.json, stop it and
check that nothing of it is left running."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "deploy" / "bin" / "loopback"


def load_script() -> ModuleType:
    """The script as a module (it has no .py suffix), for its template helpers."""
    loader = importlib.machinery.SourceFileLoader("deploy_loopback", str(SCRIPT))
    spec = importlib.util.spec_from_loader("deploy_loopback", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=REPO, timeout=300)


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

    def sigterm(self, name: str) -> None:
        os.kill(self.pid(name), signal.SIGTERM)

    def running_parts(self) -> list[str]:
        script = load_script()
        return [str(p["name"]) for p in self.data["parts"]
                if script.running(int(p["pid"]), int(p["started"]))]


def start(run_dir: Path) -> Topology:
    started = run_script("start", "--run-dir", str(run_dir), "--port", "0", "--redis-port", "0",
                         "--node-ports", "0,0")
    assert started.returncode == 0, f"loopback start failed:\n{started.stdout}{started.stderr}"
    data = json.loads((run_dir / "topology.json").read_text())
    assert started.stdout.strip().splitlines()[-1] == data["url"], "prints the URL last"
    return Topology(run_dir, data)


def stop(topology: Topology) -> None:
    """Stop it and check that none of its processes is left."""
    stopped = run_script("stop", "--run-dir", str(topology.run_dir))
    assert stopped.returncode == 0, stopped.stderr
    assert topology.running_parts() == [], "loopback stop left processes running"
    assert not (topology.run_dir / "topology.json").exists()
