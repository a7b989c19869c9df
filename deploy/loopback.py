"""The compose topology (deploy/compose.yaml) from machine packages, on 127.0.0.1 only:
redis-server (append-only file on), two ``python -m server`` nodes against it with their
own node ids, and nginx in front, its config rendered from deploy/nginx.conf.

  deploy/bin/loopback start  [--run-dir DIR] [--port 8080] [--redis-port 6390]
                             [--node-ports 8001,8002]   (0 = any free port)
  deploy/bin/loopback run    [same options as start]   start, stay in the foreground until
                             stdin closes (Ctrl-D) or SIGTERM/SIGHUP/Ctrl-C, then stop
  deploy/bin/loopback status [--run-dir DIR]   exit 0 when every part is up and healthy
  deploy/bin/loopback restart PART [--run-dir DIR]   PART (redis, node-1, node-2, nginx)
                             stopped if it runs, started again on its port, waited for
  deploy/bin/loopback stop   [--run-dir DIR]   nothing of it is left running afterwards
  deploy/bin/loopback nginx-config --port P --node-ports P1,P2 [--run-dir DIR]
                             print the rendered nginx config (what start writes)

Each part runs in its own session and process group; ``stop`` ends the group, so what a
part forked (nginx's worker) goes with it. Everything (pid files, logs, Redis data, nginx
config/pid/temp files, topology.json with the ports and pids) lives in the run directory,
default ./var/loopback. nginx runs as the current user. Needs redis-server and nginx
(deploy/bin/setup system) and the virtualenv (deploy/bin/setup python). Standard library only.

Run it through ``deploy/bin/loopback`` (a bash script, so both ``deploy/bin/loopback start``
and ``bash deploy/bin/loopback start`` work; it execs ``python3`` on this file, keeping its
pid, which ``run``'s parent-death signal and stdin rely on) or as ``python3 deploy/loopback.py``.
A part counts as up when it answers: Redis PING, a node's and nginx's ``/readyz``.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import grp
import json
import os
import pwd
import random
import re
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TEMPLATE = REPO / "deploy" / "nginx.conf"
DEFAULT_RUN_DIR = REPO / "var" / "loopback"
NODE_IDS = ("node-1", "node-2")
START_TIMEOUT_S = 90.0  # two Python processes importing the rules core on a busy machine
STOP_TIMEOUT_S = 30.0  # a node's graceful shutdown is bounded by REFEREE_SHUTDOWN_TIMEOUT_S
PR_SET_PDEATHSIG = 1  # prctl(2)
TEMPLATE_VARIABLES = ("NGINX_USER", "NGINX_GROUP", "NGINX_WORKERS", "NGINX_WORKER_CONNECTIONS",
                      "NGINX_WORKER_FILES", "NGINX_RUN_DIR", "NGINX_ERROR_LOG",
                      "NGINX_ACCESS_LOG", "NGINX_LISTEN", "REFEREE_NODE_1", "REFEREE_NODE_2")


class LoopbackError(Exception):
    pass


# --- the nginx config ----------------------------------------------------------------------

def render_nginx(values: dict[str, str], template: str | None = None) -> str:
    """deploy/nginx.conf with its ${NAME} placeholders filled in, exactly like
    ``envsubst '${NGINX_USER} ...'`` in compose.yaml: only TEMPLATE_VARIABLES are replaced."""
    missing = sorted(set(TEMPLATE_VARIABLES) - set(values))
    if missing:
        raise LoopbackError(f"no value for {missing}")
    text = TEMPLATE.read_text() if template is None else template
    return re.sub(r"\$\{([A-Z0-9_]+)\}",
                  lambda m: values[m.group(1)] if m.group(1) in TEMPLATE_VARIABLES else m.group(0),
                  text)


def nginx_worker_limits() -> tuple[int, int]:
    """The loopback nginx worker's open files and connections (``worker_rlimit_nofile``,
    ``worker_connections``): it runs as this user, so it may raise its open files to the
    hard limit, no further, and keeps a few of them for its log and listeners."""
    files = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    files = 1 << 20 if files == resource.RLIM_INFINITY else files
    return files, max(1024, files - 256)


def loopback_nginx_values(run_dir: Path, port: int, node_ports: list[int]) -> dict[str, str]:
    files, connections = nginx_worker_limits()
    return {
        "NGINX_USER": pwd.getpwuid(os.getuid()).pw_name,
        "NGINX_GROUP": grp.getgrgid(os.getgid()).gr_name,
        "NGINX_WORKERS": "1",
        "NGINX_WORKER_FILES": str(files),
        "NGINX_WORKER_CONNECTIONS": str(connections),
        "NGINX_RUN_DIR": str(run_dir / "nginx"),
        "NGINX_ERROR_LOG": str(run_dir / "nginx-error.log"),
        "NGINX_ACCESS_LOG": str(run_dir / "nginx-access.log"),
        "NGINX_LISTEN": f"127.0.0.1:{port}",
        "REFEREE_NODE_1": f"127.0.0.1:{node_ports[0]}",
        "REFEREE_NODE_2": f"127.0.0.1:{node_ports[1]}",
    }


# --- processes -----------------------------------------------------------------------------

def free_port(chosen: Collection[int] = ()) -> int:
    """A port free now, below the kernel's ephemeral range and not among ``chosen`` (ports
    picked for other parts, not bound yet: two parts were once given the same one). The
    parts bind it only later, and a port the kernel picked (``bind(0)``) is one it may hand
    to any outgoing connection meanwhile (a busy host has thousands: a node then failed
    "address already in use")."""
    low = _ephemeral_low()
    for _ in range(200):
        port = random.randrange(10_000, low)
        if port in chosen:
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise LoopbackError(f"no free port found between 10000 and {low}")


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768  # Linux's default


def binary(name: str) -> str:
    for candidate in (f"/usr/sbin/{name}", f"/usr/bin/{name}", shutil.which(name)):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise LoopbackError(f"{name} is not installed; run deploy/bin/setup system")


def die_with_parent(sig: int) -> Callable[[], None]:
    """A ``preexec_fn``: the child gets ``sig`` when the process that started it exits
    (PR_SET_PDEATHSIG), so the parts of a ``run`` end even if ``run`` itself is SIGKILLed."""
    libc = ctypes.CDLL(None, use_errno=True)  # loaded before the fork
    parent = os.getpid()

    def preexec() -> None:
        libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os.kill(os.getpid(), sig)

    return preexec


def spawn(argv: list[str], log: Path, env: dict[str, str] | None = None,
          parent_death: int | None = None) -> int:
    """Start a process in its own session, hence its own process group whose id is its pid:
    ``stop`` ends it together with anything it forked (nginx's worker), and a Ctrl-C of the
    caller does not reach it. Its output goes to ``log``; returns its pid."""
    with open(log, "ab") as out:
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=REPO,
            env=env, start_new_session=True,
            preexec_fn=None if parent_death is None else die_with_parent(parent_death))
    return process.pid


def proc_stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after "pid (comm)" (0 state, 1 ppid, 2 process group,
    19 start time in clock ticks since boot), zombies included; None if there is no such pid."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def start_time(pid: int) -> int | None:
    """When ``pid`` started, or None if it is gone or a zombie. Recorded at start, compared
    at stop: a recycled pid is never mistaken for ours."""
    fields = proc_stat(pid)
    if fields is None or fields[0] in ("Z", "X"):  # PID 1 here does not always reap at once
        return None
    return int(fields[19])


def running(pid: int, started: int) -> bool:
    return start_time(pid) == started


def group_members(pgid: int, since: int) -> list[int]:
    """The live processes of process group ``pgid`` that started at ``since`` or later."""
    members = []
    for entry in os.listdir("/proc"):
        fields = proc_stat(int(entry)) if entry.isdigit() else None
        if (fields is not None and fields[0] not in ("Z", "X") and int(fields[2]) == pgid
                and int(fields[19]) >= since):
            members.append(int(entry))
    return members


def wait_exit(pid: int, timeout_s: float) -> bool:
    """Wait until ``pid`` has exited (pidfd: works for processes that are not our children);
    True if it did within ``timeout_s``."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([fd], [], [], timeout_s)
        return bool(readable)
    finally:
        os.close(fd)


def end_part(part: dict[str, Any]) -> bool:
    """SIGTERM the part and wait for it (its graceful stop), SIGKILL it after
    STOP_TIMEOUT_S, then SIGKILL whatever is left of its process group (e.g. nginx's worker
    after a kill -9 of its master). True if anything of it was running."""
    pid, since = int(part["pid"]), int(part["started"])
    found = False
    if running(pid, since):
        found = True
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        if not wait_exit(pid, STOP_TIMEOUT_S):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            wait_exit(pid, STOP_TIMEOUT_S)
    leader = proc_stat(pid)
    # A pid stays allocated while it names a process group, so if it is gone or still ours
    # (maybe a zombie), the processes of group ``pid`` are ours.
    if leader is None or int(leader[19]) == since:
        for member in group_members(pid, since):
            found = True
            with contextlib.suppress(ProcessLookupError):
                os.kill(member, signal.SIGKILL)
            wait_exit(member, STOP_TIMEOUT_S)
    return found


def wait_until(what: str, ready: Callable[[], bool], alive: Callable[[], bool],
               timeout_s: float) -> None:
    """Poll ``ready()`` (a script may poll; the tests never do) until true; fail early when
    ``alive()`` turns false."""
    deadline = time.monotonic() + timeout_s
    while not ready():
        if not alive():
            raise LoopbackError(f"{what} exited during start-up")
        if time.monotonic() > deadline:
            raise LoopbackError(f"{what} not ready after {timeout_s:.0f} s")
        time.sleep(0.1)


def redis_ready(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def readyz(base: str) -> dict[str, Any] | None:
    """/readyz's JSON when it answers 200 (the node serves and its store writes), else
    None."""
    try:
        with urllib.request.urlopen(f"{base}/readyz", timeout=2) as response:
            body = json.loads(response.read())
            return body if isinstance(body, dict) else None
    except (OSError, urllib.error.URLError, ValueError):
        return None


# --- the topology --------------------------------------------------------------------------

def topology_path(run_dir: Path) -> Path:
    return run_dir / "topology.json"


def read_topology(run_dir: Path) -> dict[str, Any] | None:
    path = topology_path(run_dir)
    return json.loads(path.read_text()) if path.exists() else None


def parts(topology: dict[str, Any]) -> list[dict[str, Any]]:
    """Start order: redis, the nodes, nginx (stop goes the other way)."""
    return list(topology["parts"])


def launch(run_dir: Path, topology: dict[str, Any], name: str,
           parent_death: int | None = None) -> dict[str, Any]:
    """Start the part ``name`` on the port ``topology`` gives it and record it (pid file,
    topology.json, replacing an earlier entry of the same name) before anything else can
    fail; does not wait for it to be ready. Returns its entry."""
    env: dict[str, str] | None = None
    if name == "redis":
        argv = [binary("redis-server"), "--port", str(topology["redis_port"]),
                "--bind", "127.0.0.1", "--dir", str(run_dir / "redis"), "--appendonly", "yes",
                "--appendfsync", "always", "--save", "", "--daemonize", "no"]
    elif name in NODE_IDS:
        python = REPO / ".venv" / "bin" / "python"
        if not python.exists():
            raise LoopbackError("no .venv; run deploy/bin/setup python")
        node = next(n for n in topology["nodes"] if n["id"] == name)
        node_port = int(node["port"])
        # The nodes' id locks live in the run directory: two topologies (or a test run and
        # a developer's) never contend for one machine-wide lock of node-1's.
        env = {**os.environ, "REDIS_URL": str(topology["redis_url"]), "REFEREE_NODE_ID": name,
               "REFEREE_HOST": "127.0.0.1", "REFEREE_PORT": str(node_port),
               "REFEREE_NODE_STATE_DIR": str(run_dir),
               # nginx routes a room's sockets by its id: the node they reach starts it
               "REFEREE_CLAIM_ON_CREATE": "0",
               # /metrics on a port of its own for the scraper (the game's port has none)
               "REFEREE_METRICS_LISTEN": f"127.0.0.1:{node['metrics_port']}"}
        env.pop("REFEREE_STORAGE", None)
        argv = [str(python), "-m", "server", "--port", str(node_port)]
    elif name == "nginx":
        config = run_dir / "nginx.conf"
        node_ports = [int(n["port"]) for n in topology["nodes"]]
        config.write_text(render_nginx(loopback_nginx_values(run_dir, int(topology["port"]),
                                                             node_ports)))
        argv = [binary("nginx"), "-p", str(run_dir), "-c", str(config),
                "-e", str(run_dir / "nginx-error.log"), "-g", "daemon off;"]
        check = subprocess.run([*argv[:-2], "-t"], capture_output=True, text=True)
        if check.returncode != 0:
            raise LoopbackError(f"nginx -t refused {config}:\n{check.stderr}")
    else:
        raise LoopbackError(f"no part {name!r}; the parts are redis, {', '.join(NODE_IDS)}, nginx")
    pid = spawn(argv, run_dir / f"{name}.log", env, parent_death)
    fields = proc_stat(pid)  # our unreaped child: there even if it exited at once
    assert fields is not None
    part = {"name": name, "pid": pid, "started": int(fields[19])}
    entries: list[dict[str, Any]] = topology["parts"]
    index = next((i for i, p in enumerate(entries) if p["name"] == name), len(entries))
    entries[index:index + 1] = [part]
    (run_dir / f"{name}.pid").write_text(f"{pid}\n")
    topology_path(run_dir).write_text(json.dumps(topology, indent=2))
    return part


def wait_ready(topology: dict[str, Any], part: dict[str, Any]) -> None:
    """Until the part answers: Redis PING, a node's /readyz, /readyz through nginx."""
    name, pid, since = str(part["name"]), int(part["pid"]), int(part["started"])
    if name == "redis":
        port = int(topology["redis_port"])
        ready: Callable[[], bool] = lambda: redis_ready(port)  # noqa: E731
    else:
        url = str(topology["url"] if name == "nginx"
                  else next(n["url"] for n in topology["nodes"] if n["id"] == name))
        ready = lambda: readyz(url) is not None  # noqa: E731
    wait_until(name, ready, lambda: running(pid, since), START_TIMEOUT_S)


def start(run_dir: Path, port: int, redis_port: int, node_ports: list[int],
          parent_death: int | None = None) -> dict[str, Any]:
    """Start Redis, then both nodes, then nginx, each ready before what needs it; on any
    failure (or signal) stop what was started, then raise."""
    existing = read_topology(run_dir)
    if existing is not None and any(running(int(p["pid"]), int(p["started"]))
                                    for p in parts(existing)):
        raise LoopbackError(f"already running from {run_dir}; stop it first")
    for name in ("redis-server", "nginx"):
        binary(name)
    chosen = {p for p in (port, redis_port, *node_ports) if p}

    def pick(given: int = 0) -> int:
        if not given:
            given = free_port(chosen)
            chosen.add(given)
        return given

    port, redis_port = pick(port), pick(redis_port)
    node_ports = [pick(p) for p in node_ports]
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "redis").mkdir(exist_ok=True)
    (run_dir / "nginx").mkdir(exist_ok=True)
    topology: dict[str, Any] = {
        "url": f"http://127.0.0.1:{port}", "port": port, "redis_port": redis_port,
        "redis_url": f"redis://127.0.0.1:{redis_port}/0", "run_dir": str(run_dir),
        "nodes": [{"id": node, "port": p, "url": f"http://127.0.0.1:{p}",
                   "metrics_port": (metrics := pick()),
                   "metrics_url": f"http://127.0.0.1:{metrics}/metrics"}
                  for node, p in zip(NODE_IDS, node_ports, strict=True)],
        "parts": [],
    }
    try:
        wait_ready(topology, launch(run_dir, topology, "redis", parent_death))
        nodes = [launch(run_dir, topology, node, parent_death) for node in NODE_IDS]
        for node in nodes:  # started together, waited for in turn
            wait_ready(topology, node)
        wait_ready(topology, launch(run_dir, topology, "nginx", parent_death))
    except BaseException:
        stop(run_dir)
        raise
    return topology


def restart(run_dir: Path, name: str) -> dict[str, Any]:
    """Stop the part ``name`` if it runs (SIGTERM, as ``stop`` does), start it again on its
    port (Redis: the same data directory, so its append-only file is replayed) and wait
    until it is ready; a part that does not come up is stopped again."""
    topology = read_topology(run_dir)
    if topology is None:
        raise LoopbackError(f"not running (no {topology_path(run_dir)})")
    old = next((p for p in parts(topology) if p["name"] == name), None)
    if old is not None:
        end_part(old)
    part = launch(run_dir, topology, name)
    try:
        wait_ready(topology, part)
    except BaseException:
        end_part(part)
        raise
    return part


def stop(run_dir: Path) -> list[str]:
    """Stop nginx, then the nodes (SIGTERM: their graceful shutdown), then Redis (SIGTERM:
    it flushes its append-only file), each with its process group (``end_part``). Returns
    what was found running. A part that cannot be signalled does not keep the others
    running; topology.json then stays, for another ``stop``."""
    topology = read_topology(run_dir)
    if topology is None:
        return []
    stopped, errors = [], []
    for part in reversed(parts(topology)):
        try:
            if end_part(part):
                stopped.append(str(part["name"]))
        except OSError as error:
            errors.append(f"{part['name']}: {error}")
            continue
        with contextlib.suppress(FileNotFoundError):
            (run_dir / f"{part['name']}.pid").unlink()
    if errors:
        raise LoopbackError(f"could not stop {'; '.join(errors)}")
    topology_path(run_dir).unlink()
    return stopped


def run(run_dir: Path, port: int, redis_port: int, node_ports: list[int]) -> list[str]:
    """``start``, then stay in the foreground until stdin closes (Ctrl-D, or the process
    that started ``run`` died: the test fixtures rely on this) or SIGTERM/SIGHUP/Ctrl-C
    arrives; then ``stop``. The parts get SIGTERM should ``run`` itself be SIGKILLed."""
    def leave(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, leave)
    signal.signal(signal.SIGHUP, leave)
    try:
        print_started(start(run_dir, port, redis_port, node_ports, signal.SIGTERM), run_dir)
        sys.stdout.flush()
        while sys.stdin.buffer.read1(4096):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)  # a second signal does not cut the stop short
        stopped = stop(run_dir)
    return stopped


def print_started(topology: dict[str, Any], run_dir: Path) -> None:
    for node in topology["nodes"]:
        print(f"{node['id']}: {node['url']}")
    print(f"redis: {topology['redis_url']}  (logs and pids in {run_dir})")
    print(topology["url"])


def status(run_dir: Path) -> bool:
    topology = read_topology(run_dir)
    if topology is None:
        print(f"not running (no {topology_path(run_dir)})")
        return False
    healthy = True
    urls = {node["id"]: node["url"] for node in topology["nodes"]}
    urls["nginx"] = topology["url"]
    for part in parts(topology):
        name, pid = str(part["name"]), int(part["pid"])
        alive = running(pid, int(part["started"]))
        line = f"{name:8} pid {pid:<8} {'running' if alive else 'NOT RUNNING'}"
        if alive and name in urls:
            health = readyz(str(urls[name]))
            alive = health is not None
            line += f"  {urls[name]}/readyz: {health if health is not None else 'not ready'}"
        elif alive and name == "redis":
            alive = redis_ready(int(topology["redis_port"]))
            line += f"  {topology['redis_url']}: {'PONG' if alive else 'no answer'}"
        healthy = healthy and alive
        print(line)
    return healthy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deploy/bin/loopback", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command",
                        choices=("start", "run", "stop", "status", "restart", "nginx-config"))
    parser.add_argument("part", nargs="?", help="restart: redis, node-1, node-2 or nginx")
    parser.add_argument("--run-dir", type=Path, default=DEFAULT_RUN_DIR)
    parser.add_argument("--port", type=int, default=8080, help="nginx (0 = any free port)")
    parser.add_argument("--redis-port", type=int, default=6390)
    parser.add_argument("--node-ports", default="8001,8002")
    args = parser.parse_args(argv)
    run_dir = args.run_dir.resolve()
    node_ports = [int(p) for p in args.node_ports.split(",")]
    if len(node_ports) != 2:
        parser.error("--node-ports takes two ports")
    if (args.command == "restart") != (args.part is not None):
        parser.error("restart takes a part (redis, node-1, node-2, nginx); nothing else does")
    try:
        if args.command == "start":
            print_started(start(run_dir, args.port, args.redis_port, node_ports), run_dir)
            return 0
        if args.command in ("run", "stop"):
            stopped = (run(run_dir, args.port, args.redis_port, node_ports)
                       if args.command == "run" else stop(run_dir))
            print(f"stopped: {', '.join(stopped) if stopped else 'nothing was running'}")
            return 0
        if args.command == "restart":
            part = restart(run_dir, args.part)
            print(f"{part['name']}: pid {part['pid']}")
            return 0
        if args.command == "status":
            return 0 if status(run_dir) else 3
        print(render_nginx(loopback_nginx_values(run_dir, args.port, node_ports)), end="")
        return 0
    except LoopbackError as error:
        print(f"loopback: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
