"""Every scenario file of tests/rules/scenarios, run through the real engine (issues 2, 3).

Each file is one or more whole activations: setup, commands, and the expected events or
rejection codes. The format is described in tests/rules/scenarios/README.md.

Implementation test: no rule section. Each scenario file names the rule it proves in its
``rules`` field."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scenarios import load_scenario, run_scenario, scenario_files


@pytest.mark.parametrize("path", scenario_files(), ids=lambda p: p.stem)
def test_scenario(path: Path) -> None:
    run_scenario(load_scenario(path))
