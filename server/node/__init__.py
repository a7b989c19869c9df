"""Node operations and storage start-up: what one server process needs around the game.

Health (``/livez``, ``/readyz``, ``/healthz`` and the storage write probe), the graceful
shutdown, the watches on the event loop and the garbage collector, the crowd's collector
freeze, and the room storage a node starts with (an external Redis checked for durability,
or an embedded, supervised one, and the lock records they leave). ``server/app.py`` wires
them into the app and ``python -m server`` (``server/__main__.py``) starts them.
"""
