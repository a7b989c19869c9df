"""The plane's type aliases, in a module of their own that stays interpreted: a module
compiled by mypyc turns ``Point = tuple[float, float]`` into the bare ``tuple`` at run
time, and ``plain`` reads these aliases from the dataclasses' annotations."""

from __future__ import annotations

Point = tuple[float, float]
Polygon = tuple[Point, ...]
HalfPlanes = tuple[tuple[float, float, float], ...]
"""``nx*x + ny*y <= c`` for each edge, unit outward normals: the inside is where all hold."""
