"""``python -m server.verify``: it accepts the record of a real game with many dice and
rejects, naming the die or the field, every kind of tampering with it.

The game is played with the rules core alone (testkit/full_game.py) and made into a
record by the server's own ``build_record``; tests/lobby/test_record.py checks a record
The game is played with the rules core alone (testkit/full_game.py) and made into a
record by the server's own ``build_record``; tests/lobby/test_record.py checks a record
served over HTTP after a game played through websockets.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from protocol.codec import pack_plain, unpack_plain
from server import verify
from server.lobby.record import build_record
from server.rules.events import event_to_plain
from server.rules.ids import Side
from testkit.full_game import whole_game

SECRET = hashlib.sha256(b"test_verify secret").hexdigest()
ENTROPY = {Side.A: hashlib.sha256(b"player A").hexdigest(),
           Side.B: hashlib.sha256(b"player B").hexdigest()}
Record = dict[str, Any]


@pytest.fixture(scope="module")
def played() -> Record:
    _, log = whole_game("codeone", SECRET, ENTROPY)
    events = [unpack_plain(pack_plain(event_to_plain(event))) for event in log]  # as stored
    settings = SimpleNamespace(ruleset="codeone", aro_window_s=30.0, visibility="private",
                               spectator_delay_s=0.0, fixed_dice=False, table="", mission="",
                               clock_s=0)
    meta = SimpleNamespace(room_id="0-verify", created_ms=1_795_000_000_000, settings=settings)
    return build_record(meta, events)  # type: ignore[arg-type]


@pytest.fixture
def record(played: Record) -> Record:
    return copy.deepcopy(played)


def run(record: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    status = verify.main([str(path)])
    out = capsys.readouterr()
    return status, out.out + out.err


def rolling(record: Record, kind: str = "order_resolved") -> list[dict[str, Any]]:
    """The entries of ``kind`` that drew dice."""
    return [entry for entry in record["events"]
            if entry["event"]["type"] == kind and entry["event"]["dice"]["drawn"]]


def test_the_record_of_a_real_game_checks_out(record: Record, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    dice = record["events"][-1]["event"]["dice_revealed"]
    assert record["dice"] == {"algorithm": "hmac-sha256-d20/v1", **dice}
    assert len(rolling(record)) >= 5, "the game must roll in many Orders"
    status, out = run(record, tmp_path, capsys)
    summary = verify.verify(record)
    assert status == 0, out
    assert summary.dice >= 50 and summary.untied == 0
    assert out.strip() == summary.line()
    assert out.startswith(f"record OK: {summary.dice} dice in ")
    assert record["dice"]["commitment"] in out


def test_one_drawn_die_changed_is_named(record: Record, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    entry = rolling(record)[2]
    dice = entry["event"]["dice"]
    number = dice["cursor"] - len(dice["drawn"])
    true_face = dice["drawn"][0]
    dice["drawn"][0] = true_face % 20 + 1
    status, out = run(record, tmp_path, capsys)
    assert status == 1
    assert (f"event {entry['index']} (order_resolved): die {number} (dice.drawn[0]) is "
            f"{true_face % 20 + 1}, expected {true_face}") in out


def test_a_shown_face_that_is_not_the_drawn_die_is_named(
        record: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entry = next(e for e in rolling(record) if e["event"]["outcome"]["rolls"][0]["dice"])
    die = entry["event"]["outcome"]["rolls"][0]["dice"][0]
    die["face"] = die["face"] % 20 + 1
    status, out = run(record, tmp_path, capsys)
    assert status == 1
    assert f"event {entry['index']} (order_resolved): the rolls and saves show faces" in out


def test_initiative_attempts_must_be_the_drawn_dice(
        record: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entry = rolling(record, "initiative_rolled")[0]
    attempts = entry["event"]["attempts"]
    attempts[0][0] = attempts[0][0] % 20 + 1
    status, out = run(record, tmp_path, capsys)
    assert status == 1
    assert f"event {entry['index']} (initiative_rolled): attempts show " in out


@pytest.mark.parametrize(("name", "tamper", "message"), [
    ("commitment", lambda r: r["dice"].update(commitment="0" * 64),
     "dice.commitment: " + "0" * 64 + " is not the commitment of dice.secret"),
    ("secret", lambda r: r["dice"].update(secret="1" * 64),
     "is not the commitment of dice.secret"),
    ("contribution", lambda r: r["dice"]["contributions"].update(B="2" * 64),
     "dice.contributions.B: " + "2" * 64 + " differs from the entropy of event 2 (army_chosen)"),
    ("contribution not hex", lambda r: r["dice"]["contributions"].update(A="xyz"),
     "dice.contributions.A: expected 64 lowercase hexadecimal characters"),
    ("format", lambda r: r.update(format="infinity-referee-record/0"),
     "format: expected 'infinity-referee-record/1'"),
    ("algorithm", lambda r: r["dice"].update(algorithm="mt19937"),
     "dice.algorithm: expected 'hmac-sha256-d20/v1'"),
])
def test_a_changed_dice_field_is_named(record: Record, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str], name: str,
                                       tamper: Callable[[Record], None], message: str) -> None:
    tamper(record)
    status, out = run(record, tmp_path, capsys)
    assert status == 1, name
    assert message in out, out


def test_the_dice_block_must_be_what_game_ended_revealed(
        record: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A consistent new secret in the summary only: game_ended still reveals the true one.
    other = "3" * 64
    record["dice"].update(secret=other, commitment=verify.commitment(bytes.fromhex(other)))
    status, out = run(record, tmp_path, capsys)
    assert status == 1
    assert f"dice.secret: '{other}' differs from event {len(record['events'])} (game_ended)" in out


def test_a_contribution_changed_everywhere_changes_the_key(
        record: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = "4" * 64
    record["dice"]["contributions"]["A"] = other
    record["events"][-1]["event"]["dice_revealed"]["contributions"]["A"] = other
    chosen = next(e for e in record["events"] if e["event"]["type"] == "army_chosen"
                  and e["event"]["side"] == "A")
    chosen["event"]["entropy"] = other
    first = rolling(record, "initiative_rolled")[0]
    status, out = run(record, tmp_path, capsys)
    assert status == 1
    assert f"event {first['index']} (initiative_rolled): dice.key is " in out


def test_two_rolling_events_swapped_are_named(record: Record, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    one, two = rolling(record)[1:3]
    expected = one["event"]["dice"]["cursor"] - len(one["event"]["dice"]["drawn"])
    one["event"], two["event"] = two["event"], one["event"]
    status, out = run(record, tmp_path, capsys)
    assert status == 1
    assert f"event {one['index']} (order_resolved): its dice are numbers " in out
    assert f"expected them to start at die {expected}" in out


def test_injected_faces_are_refused(record: Record, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    entry = rolling(record)[0]
    entry["event"]["dice"]["injected"] = [20]
    status, out = run(record, tmp_path, capsys)
    assert status == 1
    assert f"event {entry['index']} (order_resolved): dice.injected is [20]" in out


def test_a_missing_field_is_named(record: Record, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    entry = rolling(record)[0]
    del entry["event"]["dice"]["cursor"]
    status, out = run(record, tmp_path, capsys)
    assert status == 1
    assert f"event {entry['index']} (order_resolved) dice.cursor: missing" in out


def test_a_game_not_over_is_refused(record: Record, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    record["events"].pop()
    status, out = run(record, tmp_path, capsys)
    assert status == 1 and "the last event is not game_ended" in out


def test_fixed_dice_are_flagged_in_the_summary(record: Record) -> None:
    record["fixed_dice"] = True
    assert "WARNING: fixed dice" in verify.verify(record).line()


def test_unreadable_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert verify.main([str(broken)]) == 2
    assert verify.main([str(tmp_path / "missing.json")]) == 2
    assert verify.main([]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_dice_function_matches_the_rules_core() -> None:
    """The independent implementation and the server's agree (so the server's records pass)."""
    from server.rules.combat import dice

    key = dice.dice_key(SECRET, ENTROPY[Side.A], ENTROPY[Side.B])
    raw = verify.dice_key(bytes.fromhex(SECRET), bytes.fromhex(ENTROPY[Side.A]),
                          bytes.fromhex(ENTROPY[Side.B]))
    assert raw.hex() == key
    assert [verify.die(raw, n) for n in range(200)] == [
        dice.die_face(raw, n) for n in range(200)]
    assert verify.commitment(bytes.fromhex(SECRET)) == dice.commitment(SECRET)


def _conceded_before_both_armies(record: Record) -> Record:
    """The record of a game B conceded before A chose its army: no key, no die."""
    events = [e for e in record["events"] if e["event"]["type"] == "army_chosen"
              and e["event"]["side"] == "B"]
    ended = copy.deepcopy(record["events"][-1])
    ended["event"]["dice_revealed"]["contributions"]["A"] = ""
    record["dice"]["contributions"]["A"] = ""
    record["events"] = [{"index": n, "event": e["event"]}
                        for n, e in enumerate([*events, ended], 1)]
    return record


def test_a_game_ended_before_any_roll_checks_only_its_commitment(
        record: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(_conceded_before_both_armies(record), tmp_path, capsys)
    assert status == 0 and "record OK: 0 dice" in out


def test_a_missing_contribution_beside_a_rolled_die_is_named(
        record: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record["dice"]["contributions"]["A"] = ""
    record["events"][-1]["event"]["dice_revealed"]["contributions"]["A"] = ""
    status, out = run(record, tmp_path, capsys)
    assert status == 1 and "dice.contributions.A is missing, yet event" in out
