"""A class's resolved type hints, read once per class.

Every converter made for a dataclass (``prepare``, ``decoders``, ``encoders``,
``explaining``, ``state_form``) reads its hints, and ``typing.get_type_hints`` evaluates
each annotation anew: under ``from __future__ import annotations`` every one is a string,
compiled and evaluated at each call. Read once per class, making every converter (what a
node does before it serves) costs over a quarter less. A class's hints do not
change once they resolve; a hint that does not resolve yet raises ``NameError``, and that is
not remembered (the class is read again at its next use).
"""

from __future__ import annotations

import functools
from typing import Any, get_type_hints


@functools.cache
def hints_of(cls: type) -> dict[str, Any]:
    """``get_type_hints(cls)``, shared: never change the dict."""
    return get_type_hints(cls)
