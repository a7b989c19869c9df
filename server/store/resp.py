"""Redis commands packed as RESP bytes, for the store's hottest paths.

redis-py packs every argument through its encoder and then the commands again into chunks.
The group-committed appends (``EVALSHA`` with ~10 arguments each, ``server.store
.append_channel``) and the lease renewal thread's round (``server.cluster.renewal``, a
``RENEW`` call per owned room) send commands whose arguments are all bytes, str or int
already: hiredis packs such a command in C, faster than a join in Python
(``bench.append_cost`` has the figures per append).
"""

from __future__ import annotations

import hiredis

Arg = bytes | str | int


def pack_command(*args: Arg) -> bytes:
    """One command as RESP: an array of bulk strings (str as UTF-8, int in decimal)."""
    return hiredis.pack_command(args)  # type: ignore[arg-type, no-any-return]  # (its stub: 1-tuple)
