"""Where the invented army data lives (``testkit/army_data/``, see its README): the army
builder's document shape with invented names, ids and numbers, for tests and benchmarks."""

from __future__ import annotations

from pathlib import Path

SYNTHETIC_ARMY_DATA = Path(__file__).resolve().parent / "army_data"
