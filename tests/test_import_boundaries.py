"""Which top-level packages may import which (docs/architecture.md): the server imports none
of the tools; the test kit serves tests and bench and imports neither; bench imports the kit,
never tests; tests import the kit, and only the tests of the bench tools (``tests/bench/``)
import bench. Read from the sources with ``ast``: imports at a module's top, inside functions
and under ``if TYPE_CHECKING`` all count."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ("tests", "testkit", "bench")


def _imported_tops(path: Path) -> set[str]:
    tops = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            tops.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops.add(node.module.split(".")[0])
    return tops


def crossings(folder: str, forbidden: set[str], allowed_under: str | None = None) -> list[str]:
    """``path: package`` for every import of a ``forbidden`` package under ``folder``
    (``allowed_under``: a subfolder where such imports are the point)."""
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if allowed_under and relative.startswith(allowed_under):
            continue
        found += [f"{relative}: {top}" for top in sorted(_imported_tops(path) & forbidden)]
    return found


def test_the_server_and_the_protocol_import_no_tool() -> None:
    assert crossings("server", set(TOOLS)) == []
    assert crossings("protocol", set(TOOLS)) == []


def test_the_test_kit_imports_neither_tests_nor_bench() -> None:
    assert crossings("testkit", {"tests", "bench"}) == []


def test_bench_never_imports_tests() -> None:
    assert crossings("bench", {"tests"}) == []


def test_only_the_bench_tools_own_tests_import_bench() -> None:
    assert crossings("tests", {"bench"}, allowed_under="tests/bench/") == []


def test_an_import_inside_a_function_counts(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from bench.run import free_port\n    import tests.helpers\n")
    assert _imported_tops(module) >= {"bench", "tests"}
