"""The pure rules core: game state, commands, events, views.

Nothing in this package performs I/O (beyond reading its own package files: the army data,
and the compiled build's manifest, ``native``) or imports asyncio, Redis, Starlette,
websockets or msgpack. ``engine.decide`` turns a state and a command into events or a
rejection; ``engine.apply`` folds an event into the next state.
"""

from server.rules.native import check_fresh

check_fresh()  # before any compiled module is imported: never run one older than its source
