"""The practice bot (docs/bot.md): a player seated like a human, deciding only from its own
seat's frames (the ``snapshot``/``events`` view and ``options``).

- ``decide``: the decision function, ``candidates(view, options, seat, level, rng)``;
- ``random_level`` / ``sensible``: its two levels;
- ``odds``: exact hit probabilities (Normal and Face to Face rolls) from public Success Values;
- ``ground``: where cover and objectives lie on the table the view shows;
- ``seat_client``: the bot's websocket connection to its seat, as a browser's;
- ``seating``: starting the bots of the rooms this node creates.

Nothing here imports the room, the store or the rules state (tests/test_import_boundaries.py).
"""
