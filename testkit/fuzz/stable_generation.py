"""Generation that depends on the strategy alone, not on what else the process imported.

Now and then hypothesis draws a "local constant": a literal found in the source of every
non-test module loaded in the process. Which modules are loaded depends on the tests that
ran before in the same process, and any edit to the code adds or removes literals, so a
derandomized run's examples changed with the test order: the lobby fuzz, run after the
rest of the suite, sent 95 create-room bodies that were all refused and never reached the
success path it checks. Within ``hypothesis_constants_only`` hypothesis draws only from its
own constants, so one strategy gives the same examples in any order.

This reaches two private names of hypothesis (``providers._get_local_constants``,
``providers.CONSTANTS_CACHE``); if a release renames them, reading them below fails at once
rather than silently generating another stream.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis.internal.cache import LRUCache
from hypothesis.internal.conjecture import providers
from hypothesis.internal.constants_ast import Constants


@contextmanager
def hypothesis_constants_only() -> Iterator[None]:
    get_local, cache = providers._get_local_constants, providers.CONSTANTS_CACHE
    none_local = Constants()  # every pool empty
    providers._get_local_constants = lambda: none_local
    providers.CONSTANTS_CACHE = LRUCache(1024)  # its entries mix the local pools in
    try:
        yield
    finally:
        providers._get_local_constants = get_local
        providers.CONSTANTS_CACHE = cache
