"""Settings read from the environment, and the collector thresholds' format."""

from __future__ import annotations

import pytest

from server.app import create_app
from server.config import Settings


def test_environment_variables_override_the_defaults() -> None:
    settings = Settings.from_env({"REFEREE_GC_THRESHOLD": "5000,20,100",
                                  "REFEREE_FREEZE_GC": "no", "REFEREE_PORT": "9001"})
    assert settings.gc_thresholds() == (5000, 20, 100)
    assert settings.freeze_gc is False
    assert settings.port == 9001


def test_an_empty_threshold_keeps_pythons_own() -> None:
    assert Settings(gc_threshold="").gc_thresholds() is None
    assert Settings().gc_thresholds() == (100_000, 50, 1000)


@pytest.mark.parametrize("bad", ["100000,50", "a,b,c", "0,10,10", "1,2,3,4"])
def test_a_malformed_threshold_stops_the_server_at_start(bad: str) -> None:
    with pytest.raises(ValueError):
        create_app(Settings(gc_threshold=bad, freeze_gc=False, static_dir=None))
