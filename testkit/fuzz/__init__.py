"""The fuzzer against a real referee (issue 18), in four parts: ``frames`` generates
websocket frames and lobby requests, each with what it must get back; ``oracle`` judges what
came back (pure checks); ``server`` runs ``python -m server`` and reads its log; ``harness``
makes rooms, sends the batches and hands the answers to the oracle. The long run is the
command-line tool ``python -m bench.fuzz``; the smoke runs are the tests
test_fuzz_protocol.py and test_fuzz_http.py.
"""
