"""How the benchmark reports write a figure (bench/report.py and the floor's sections)."""

from __future__ import annotations

from typing import Any


def fmt(value: Any) -> str:
    """A figure as the reports write it: three significant digits below 100, whole numbers
    with thousands separators above, "-" for a figure not measured."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 100 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
