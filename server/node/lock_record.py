"""The JSON record a lock file carries: who holds it, for whoever finds it held.

The node id's lock file (``server.cluster.identity``) and the embedded Redis's data-folder
lock (``server.node.embedded_redis``) each write one (pids, a token) while they hold the file's
flock; a process refused the flock reads it to say who holds it.
"""

from __future__ import annotations

import json
import os


def read_record(fd: int) -> dict[str, object]:
    """The record in the file open as ``fd``; {} when it is empty or unreadable (a writer
    cut short, or a file from elsewhere)."""
    try:
        record = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}
