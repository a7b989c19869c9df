"""The project's modules compiled to bytecode before a bench starts a server, as an
installed server has them.

A server process started from the repository with ``PYTHONDONTWRITEBYTECODE`` set (as on
these machines) compiles every module of the server from source at each start: about
twice the CPU of importing them from bytecode (1.9 against 1.1 s of the start-up on a slow
host). The image installs the server's wheel with pip, which writes the bytecode
(deploy/Dockerfile), so a restart in production reads it. ``compileall`` writes
``__pycache__`` whatever that variable says (git ignores it), and a process started with
the variable set still reads what is there.
"""

from __future__ import annotations

import compileall
import functools
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("server", "protocol", "bench", "testkit")


@functools.cache
def compile_project() -> None:
    """Once per process, before the first server starts: the restart phases start it again
    and must not pay even the check that nothing changed."""
    for package in PACKAGES:
        if not compileall.compile_dir(REPO / package, quiet=1):
            raise RuntimeError(f"bench: {package} does not compile to bytecode")
