"""This node's id: the same after a restart, and never shared by two live processes.

A room's lease names its owner node. A node restarted under a new id found its rooms
leased to its dead predecessor and waited that lease out (``lease_s``, 5 s: hellos hung,
an ARO window due meanwhile closed up to 5 s late). Under the same id it claims them back
at once: the claim script (``lease.ACQUIRE``) gives a node its own lease again, with a NEW
fencing token.

**Which id** (``establish``):

1. ``REFEREE_NODE_ID`` when set (several nodes: one each, e.g. from the orchestrator);
2. else the id kept in ``<node_state_dir>/node-id`` (``REFEREE_NODE_STATE_DIR``, default
   the checkout's ``var/``), made once (random ``node-…``) and read at every start;
3. else a fresh random id, with a warning: no state directory (``""``) or it cannot be
   written, or the kept id is in use by a live process (two servers started from one
   checkout against one Redis: the second gets a fresh id, as before issue 18).

**Why reusing an id is safe.** Two things must hold.

(a) *A process of the old incarnation still running* (paused, cut off from Redis: a
zombie) must not write to a room once the new process has claimed it. The claim bumps
the room's fence, and Redis refuses every append and deadline write under an older fence
(the append script), whatever node id sends it. Its renewals are refused too
(``lease.RENEW`` compares the fence as well as the holder), so it learns it lost the room
and stops it, and its release on shutdown is fenced (``RELEASE_FENCED``), so it cannot
free the new process's lease either.

(b) *Two live processes must never run under one id* (both would take each other's rooms
back in turn, and share the node's bus channel and liveness key). The **instance lock**
``{node:<id>}:instance`` in Redis holds a random token of the live process, with the
lease's expiry, and the renewal thread renews it each round (``RENEW_INSTANCE``). A
starting process takes it when it is free, or when it holds the token of its *dead
predecessor*: each process also writes its token into a local lock file
(``<node_state_dir>/node-<hash of id and Redis URL>.lock``) that it holds with
``flock(2)`` while it lives. The kernel drops a flock when its process dies, so a process
that gets the flock knows that the token found in the file belongs to a process that is
gone, and takes the Redis lock over at once: a restart in place costs no wait. A lock
held by any other token (another machine, another state directory) is waited for until
its recorded expiry; if it is still there then, its holder renewed it: alive. A configured
id then refuses to start (``SystemExit``), a kept id falls back to a fresh one. A lock
whose holder died elsewhere expires within ``lease_s``, so the wait is bounded.

**The lock file goes with the lock.** The file matters only while the instance lock whose
token it records may still be in Redis (a successor takes that lock over at once). So when a
process lets go of its id (``NodeIdentity.close``) and its lock is no longer in Redis
(released on shutdown, or lapsed), it unlinks the file while it still holds the flock;
otherwise (killed, or Redis unreachable at shutdown) the file stays for its successor. A
process that opened the file before it was unlinked gets the flock on a file no longer at
that path: it checks, after every flock, that the path is still its file, else opens the
path again (``_local_lock``), so two processes never hold "the" lock on two files. A file
left by a process that died stays: it names no Redis, so nothing can tell whether the lock
it records is still live somewhere (and its successor needs it then).

A live process that finds its instance lock held by another token (its event loop stalled
past ``lease_s``, so it stopped renewing, and a new process took the id meanwhile) stops
every room it runs and reports not ready (``ClusterNode.displaced``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import redis

from server.config import Settings
from server.node.lock_record import read_record
from server.store.redis_errors import storage_call

log = logging.getLogger(__name__)

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
KEPT_ID_FILE = "node-id"

# KEYS: the instance lock; ARGV: this process's token, its dead predecessor's token ("" if
# none known), lock_ms. {1}: ours now; {0, holder, its PTTL}: held by another instance.
CLAIM_INSTANCE = """
local holder = redis.call('GET', KEYS[1])
if not holder or holder == ARGV[1] or (ARGV[2] ~= '' and holder == ARGV[2]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
  return {1}
end
return {0, holder, redis.call('PTTL', KEYS[1])}
"""

# KEYS: the instance lock; ARGV: token, lock_ms. 1: still ours (re-taken if it had lapsed
# and nobody took it), 0: another process holds this node's id now.
RENEW_INSTANCE = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""

# KEYS: the instance lock, the node's liveness key; ARGV: token. On shutdown, both go if
# the id is still this process's (a restart elsewhere need not wait for them).
RELEASE_INSTANCE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[2])
return redis.call('DEL', KEYS[1])
"""


def instance_key(node_id: str) -> str:
    return f"{{node:{node_id}}}:instance"


class NodeIdInUse(Exception):
    """A live process holds this node id against this Redis."""


@dataclass
class NodeIdentity:
    node_id: str
    instance: str
    """Random per process: the instance lock's value while this process holds the id."""
    source: str
    """Where the id came from: ``REFEREE_NODE_ID``, the kept id file, or ``fresh``."""
    _lock_fd: int | None = field(default=None, repr=False)
    _lock_path: Path | None = field(default=None, repr=False)
    _client: redis.Redis | None = field(default=None, repr=False)

    def close(self) -> None:
        """Let go of the local lock (the process is ending; the kernel would anyway), and of
        its file when the instance lock it records is gone from Redis (see the module's
        docstring)."""
        fd, self._lock_fd = self._lock_fd, None
        if fd is None:
            return
        try:
            if self._lock_path is not None and not self._instance_lock_in_redis():
                # Under the flock: nobody else can have put another file at this path.
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self._lock_path)
        finally:
            os.close(fd)

    def _instance_lock_in_redis(self) -> bool:
        """Whether ``{node:<id>}:instance`` still holds this process's token; True when
        Redis cannot say (the file is then kept for a successor)."""
        if self._client is None:
            return True
        try:
            holder = self._client.get(instance_key(self.node_id))
        except redis.RedisError as error:
            log.warning("node id %s: lock file kept (%s)", self.node_id, error)
            return True
        return holder is not None and _text(holder) == self.instance


def fresh_id() -> str:
    return f"node-{uuid.uuid4().hex[:12]}"


def establish(settings: Settings, redis_url: str, client: redis.Redis,
              lock_ms: int) -> NodeIdentity:
    """This process's node id, locally locked and its instance lock taken in Redis (see the
    module's docstring); ``SystemExit`` when a configured id is in use by a live process."""
    state_dir = Path(settings.node_state_dir) if settings.node_state_dir.strip() else None
    configured = settings.node_id.strip()
    if configured:
        identity = _take(configured, "REFEREE_NODE_ID", state_dir, redis_url, client, lock_ms,
                         refuse=True)
        assert identity is not None
        return identity
    kept = _kept_id(state_dir) if state_dir is not None else None
    if kept is not None and state_dir is not None:
        identity = _take(kept, str(state_dir / KEPT_ID_FILE), state_dir, redis_url, client,
                         lock_ms, refuse=False)
        if identity is not None:
            return identity
    node_id, token = fresh_id(), uuid.uuid4().hex
    claim_instance(client, node_id, token, "", lock_ms)
    # Deliberate without a state directory; else the reason was logged above.
    log.log(logging.INFO if state_dir is None else logging.WARNING,
            "node id %s: a fresh one, kept nowhere: restarted, this node waits for its "
            "rooms' leases to expire", node_id)
    return NodeIdentity(node_id, token, "fresh")


def _take(node_id: str, source: str, state_dir: Path | None, redis_url: str,
          client: redis.Redis, lock_ms: int, refuse: bool) -> NodeIdentity | None:
    """``node_id`` for this process; when a live process has it, None, or with ``refuse``
    SystemExit."""
    lock_fd, predecessor, lock_path = None, "", None
    if state_dir is not None:
        try:
            lock_path = _lock_path(state_dir, node_id, redis_url)
            lock_fd, predecessor = _local_lock(lock_path)
        except NodeIdInUse as busy:
            _in_use(node_id, source, str(busy), refuse)
            return None
        except OSError as error:
            log.warning("node id %s: no local lock in %s (%s); a restart waits for its "
                        "predecessor's instance lock to expire", node_id, state_dir, error)
    token = uuid.uuid4().hex
    try:
        claim_instance(client, node_id, token, predecessor, lock_ms)
    except NodeIdInUse as busy:
        if lock_fd is not None:
            os.close(lock_fd)
        _in_use(node_id, source, str(busy), refuse)
        return None
    except BaseException:
        if lock_fd is not None:
            os.close(lock_fd)
        raise
    if lock_fd is not None:
        _record(lock_fd, node_id, token)
    log.info("node id %s (from %s)", node_id, source)
    return NodeIdentity(node_id, token, source, lock_fd,
                        lock_path if lock_fd is not None else None, client)


def _in_use(node_id: str, source: str, why: str, refuse: bool) -> None:
    """Say so; with ``refuse``, SystemExit."""
    message = f"node id {node_id} (from {source}) is in use by a live process: {why}"
    if refuse:
        log.error("refusing to start: %s; two nodes must not share an id", message)
        raise SystemExit(f"refusing to start: {message}; two nodes must not share an id")
    log.warning("%s", message)


def claim_instance(client: redis.Redis, node_id: str, token: str, predecessor: str,
                   lock_ms: int) -> None:
    """Take ``{node:<id>}:instance`` for ``token``: at once if it is free or its holder is
    ``predecessor`` (known dead); else once the holder's lock lapsed. ``NodeIdInUse`` when
    the holder renewed it past its expiry (it is alive)."""
    lapses_at: dict[str, float] = {}
    while True:
        with storage_call("claim the node id"):
            result = client.eval(CLAIM_INSTANCE, 1, instance_key(node_id), token,
                                 predecessor, lock_ms)
        if int(result[0]) == 1:
            return
        holder = _text(result[1])
        pttl_ms = int(result[2])
        now = time.monotonic()
        if pttl_ms < 0:
            raise NodeIdInUse(f"its instance lock {instance_key(node_id)} never expires")
        if holder in lapses_at and now >= lapses_at[holder]:
            raise NodeIdInUse(f"instance {holder[:8]}… renews {instance_key(node_id)}")
        if holder not in lapses_at:
            lapses_at[holder] = now + pttl_ms / 1000
            log.info("node id %s: held by instance %s… for %d ms more; waiting to see "
                     "whether it is alive", node_id, holder[:8], pttl_ms)
        time.sleep(max(0.0, lapses_at[holder] - now) + 0.05)


# --- the local files ---------------------------------------------------------------------

def _kept_id(state_dir: Path) -> str | None:
    """The id kept in ``state_dir/node-id``, made now if there is none; None if the file
    cannot be written or holds no valid id (then it is left alone)."""
    path = state_dir / KEPT_ID_FILE
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            draft = state_dir / f".{KEPT_ID_FILE}.{os.getpid()}"
            draft.write_text(fresh_id() + "\n")
            with contextlib.suppress(FileExistsError):  # another process made it first
                os.link(draft, path)
            draft.unlink()
        kept = path.read_text().strip()
    except OSError as error:
        log.warning("cannot keep a node id in %s (%s): a fresh one at each start", path, error)
        return None
    if not ID_PATTERN.fullmatch(kept):
        log.warning("%s holds no valid node id (%r); using a fresh one", path, kept[:80])
        return None
    return kept


def _lock_path(state_dir: Path, node_id: str, redis_url: str) -> Path:
    digest = hashlib.sha256(f"{node_id}\n{redis_url}".encode()).hexdigest()[:16]
    return state_dir / f"node-{digest}.lock"


def _local_lock(path: Path) -> tuple[int, str]:
    """flock this (id, Redis)'s lock file; returns it and the instance token its last holder
    wrote (that process is gone: it no longer holds the flock). NodeIdInUse if a live
    process holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = _open_lock_file(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if _is_at(fd, path):
                return fd, str(read_record(fd).get("instance", ""))
        except BlockingIOError:
            holder = read_record(fd)
            os.close(fd)
            raise NodeIdInUse(f"process {holder.get('pid', '?')} holds {path}") from None
        except BaseException:
            os.close(fd)
            raise
        # Its holder unlinked it (a clean shutdown) after this process opened it: lock
        # what is at the path now instead.
        os.close(fd)


def _open_lock_file(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)  # not inherited by children (PEP 446)


def _is_at(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open as ``fd``."""
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


def _record(fd: int, node_id: str, token: str) -> None:
    data = json.dumps({"node": node_id, "instance": token, "pid": os.getpid()}).encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)
    os.fsync(fd)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
