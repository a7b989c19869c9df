"""What the tests and the benchmarks both use, so neither imports the other.

Development tooling shipped in the repository (not imported by ``server/``, not in the wheel):

- ``scripted_game``: the game every benchmark room plays, planned with the rules core (its
  commands are the bench's fingerprint);
- ``full_game``: a whole game with many dice, chosen move by move from the game's state;
- ``fuzz``: the fuzzer against a real referee (``frames`` it sends, the ``oracle`` that
  judges the answers, the ``server`` under fuzz, the ``harness`` that runs them);
- ``redis_process`` and ``server_process``: a real ``redis-server`` and a real
  ``python -m server`` in processes of their own;
- ``serving``: the app served by uvicorn inside the test's process;
- ``wsclient``: a websocket client that speaks the protocol.

The command-line tools over this kit are in ``bench/``; the tests in ``tests/``.
"""
