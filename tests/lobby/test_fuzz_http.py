"""The lobby fuzzer at its smoke size (issue 18): generated requests to the HTTP lobby of a
real server on a real Redis (``testkit.fuzz``, ``testkit/fuzz/frames.py``): never a
5xx, every error of the API a JSON ``{"error", "message"}``, the exact answer where it is
known, no room stored by a refused request, nothing wrong in the server's log. Then the
bugs it found, as regression tests: a number beyond a double (fixed in 1092afb) and text
404/405 answers under /api (now JSON, server/lobby/http_errors.py), and a number beyond a
double in a table document (server/rules/table/tables.py ``_as_number``: now 400 bad_table)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from hypothesis import strategies as st

from testkit.fuzz.frames import requests
from testkit.fuzz.harness import Fuzzing, drive, fuzzing
from testkit.fuzz.oracle import log_violations

pytestmark = [pytest.mark.redis, pytest.mark.slow]

BATCHES = 60
"""Batches of 5 to 20 requests, sent at once: 300 requests at least."""


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzing]:
    with fuzzing(tmp_path_factory.mktemp("fuzz-http"), protocol=False) as running:
        yield running


def test_generated_lobby_requests_get_documented_answers_and_store_nothing_refused(
        fuzz: Fuzzing) -> None:
    drive(BATCHES, st.lists(requests(), min_size=5, max_size=20), fuzz.lobby_batch)
    tally = fuzz.lobby.tally
    unknown = tally.unknown()
    assert not unknown, "\n".join(str(v)[:2000] for v in unknown[:10])
    assert tally.requests >= 300
    # The generation is derandomized, but a batch's requests are sent at once, so whether a
    # join with a wrong token or a record request meets a room that exists yet (403, 409)
    # depends on the order they land: seen absent in one run in CI. Those answers have their
    # own tests (test_lobby.py: bad_token; the record's 409); here every answer that came is
    # checked exactly (``unknown`` above), and these always come.
    assert {"200", "201", "400", "404"} <= set(tally.answers), tally.answers


OWN_ADDRESS = "192.0.2.7"
"""The client address of the regression posts below (``X-Forwarded-For`` from the trusted
loopback proxy): the generated requests before them may have spent the loopback address's
room-creation burst (429 ``too_many_rooms``), as many as hypothesis happened to make from it."""


def post(fuzz: Fuzzing, path: str, body: bytes) -> tuple[httpx.Response, list[str]]:
    async def send() -> tuple[httpx.Response, list[str]]:
        async with httpx.AsyncClient(base_url=fuzz.lobby.server.base) as http:
            response = await http.post(path, content=body,
                                       headers={"content-type": "application/json",
                                                "x-forwarded-for": OWN_ADDRESS})
        return response, await fuzz.lobby.server.settled_log()
    return fuzz.loop.run(send())


@pytest.mark.parametrize("field", ["aro_window_s", "spectator_delay_s"])
def test_a_number_beyond_a_double_in_room_settings_is_refused_400(fuzz: Fuzzing,
                                                                   field: str) -> None:
    """Found by the fuzzer: math.isfinite() of a JSON integer of 309 digits or more raised
    OverflowError in server/lobby/routes.py ``_number``: a 500 (fixed in 1092afb)."""
    response, log = post(fuzz, "/api/rooms", b'{"%s": 1%s}' % (field.encode(), b"0" * 400))
    assert response.status_code == 400
    assert response.json()["error"] in ("bad_field", "bad_json")  # as 1e400 is bad_json
    assert not log_violations(log, fuzz.lobby.tally, "huge number")


@pytest.mark.parametrize(("method", "path", "status"), [
    ("PUT", "/api/rooms", 405),
    ("GET", "/api/rooms/some-room/join", 405),
    ("GET", "/api/nothing-here", 404),
    ("GET", "/api/rooms/a%2Fb", 404),
])
def test_api_paths_and_methods_the_lobby_has_not_answer_json_errors(
        fuzz: Fuzzing, method: str, path: str, status: int) -> None:
    async def send() -> httpx.Response:
        async with httpx.AsyncClient(base_url=fuzz.lobby.server.base) as http:
            return await http.request(method, path)
    response = fuzz.loop.run(send())
    assert response.status_code == status
    body = response.json()
    assert isinstance(body["error"], str) and isinstance(body["message"], str)


@pytest.mark.parametrize("where", ["width", "height"])
def test_a_number_beyond_a_double_in_a_table_document_is_bad_table(fuzz: Fuzzing,
                                                                   where: str) -> None:
    table = json.loads(json.dumps(fuzz.lobby.known["table_document"][0]))
    if where == "width":
        table["width"] = 10**400
    else:
        table["terrain"][0]["height"] = 10**400
    body = json.dumps({"ruleset": table["rulesets"][0], "table": table}).encode()
    response, log = post(fuzz, "/api/rooms", body)
    assert response.status_code == 400
    assert response.json()["error"] == "bad_table"
    assert not log_violations(log, fuzz.lobby.tally, "table number")
