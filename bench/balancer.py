"""The shipped load balancer (deploy/nginx.conf, rendered as ``deploy/bin/loopback`` renders
it) in front of a bench's two referee nodes, for ``bench.run --balancer``: every socket goes
through it naming its room (``?room=``), so nginx's consistent hash sends all of a room's
sockets to one node, which owns the room (the nodes run with REFEREE_CLAIM_ON_CREATE=0).

nginx runs on the load cores: its CPU is not counted as the referee's (it is the same for a
room on one node behind it)."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.machinery
import importlib.util
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
NODE_ENV = {"REFEREE_CLAIM_ON_CREATE": "0"}
"""What the nodes behind the balancer run with (as in compose and the loopback topology)."""


def loopback_script() -> ModuleType:
    """deploy/loopback.py (deploy/ is no package): its nginx rendering, the one the
    loopback topology and its tests use."""
    loader = importlib.machinery.SourceFileLoader("deploy_loopback", str(REPO / "deploy" /
                                                                         "loopback.py"))
    spec = importlib.util.spec_from_loader("deploy_loopback", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


NGINX_FREE_SHARE = 16
"""nginx keeps a sixteenth of a worker's connections free: once fewer are free it closes
connections that are waiting for their request (since 1.19.1, "reusing connections in
advance"), which is how a socket just opened to it is closed with no answer. At 9,600
sockets (19,200 connections of 19,744) the load generators' handshakes failed so, nginx
warning "worker_connections are not enough, reusing connections"; 9,000 ran."""


def balancer_sockets() -> int:
    """The most sockets the loopback nginx's one worker carries: each takes two of its
    connections (the client's, the node's), which its user's open-file limit bounds
    (deploy/loopback.py, ``nginx_worker_limits``), less the sixteenth it keeps free and
    its listener."""
    _files, connections = loopback_script().nginx_worker_limits()
    return (connections - connections // NGINX_FREE_SHARE - 1) // 2


@contextlib.asynccontextmanager
async def balancer(workdir: Path, port: int, node_ports: list[int],
                   core: str | None) -> AsyncIterator[asyncio.subprocess.Process]:
    """nginx on 127.0.0.1:``port`` in front of the nodes, until the block ends."""
    from bench.run import pinned, wait_http

    script = loopback_script()
    run_dir = workdir / "nginx-run"
    (run_dir / "nginx").mkdir(parents=True, exist_ok=True)
    config = run_dir / "nginx.conf"
    config.write_text(script.render_nginx(script.loopback_nginx_values(run_dir, port,
                                                                       node_ports)))
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    process = await asyncio.create_subprocess_exec(
        *pinned(core, [binary, "-p", str(run_dir), "-c", str(config),
                       "-e", str(run_dir / "nginx-error.log"), "-g", "daemon off;"]),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    try:
        await wait_http(f"http://127.0.0.1:{port}/livez", process)
        yield process
    finally:
        if process.returncode is None:
            process.terminate()  # nginx's fast stop: the master ends its worker
            await process.wait()
        # What went wrong in nginx (a run's temporary directory goes with its log).
        log = run_dir / "nginx-error.log"
        worse = [line for line in (log.read_text().splitlines() if log.exists() else [])
                 if any(level in line
                        for level in ("[warn]", "[error]", "[crit]", "[alert]", "[emerg]"))]
        for line in worse[:10]:
            print(f"nginx: {line}", file=sys.stderr)
