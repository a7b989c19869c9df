"""Replays: a finished game's record folded, step by step, into what each viewer saw.

``record_input`` reads and checks a record (``infinity-referee-record/1``) into the game's
first state and its events; ``timing`` reads when each event was committed (the room's
timeline); ``fold`` folds the events with the rules core into every state and each view's
steps; ``documents`` makes the JSON answers; ``cache`` keeps a few folded games per node;
``routes`` serves them (docs/replays.md).
"""
