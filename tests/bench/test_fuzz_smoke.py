"""``python -m bench.fuzz`` end to end at a tiny size: it starts its Redis and servers, sends
frames and lobby requests, prints its summary and writes its figures (no timing asserts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import fuzz

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def test_the_long_run_command_runs_end_to_end_and_writes_its_figures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fuzz.json"
    status = fuzz.main(["--frames", "150", "--requests", "60", "--seed", "3", "--json", str(out),
                        "--allow-known"])
    figures = json.loads(out.read_text())
    printed = capsys.readouterr().out
    assert status == 0, printed  # every violation, if any, is one of the known bugs
    assert figures["frames"] >= 150 and figures["requests"] >= 60
    assert figures["state_checks"] > 0
    assert sum(figures["answers"].values()) == figures["frames"], "one outcome per frame"
    assert any(label.startswith("rejected ") for label in figures["answers"])
    assert any(status_code.startswith("4") for status_code in figures["lobby_answers"])
    for line in ("frames in", "answers:", "closes:", "state checks passed:", "server log:",
                 "violations:"):
        assert line in printed
