"""``docs/rules-coverage.md`` names, for every rule it calls done, tests that exist.

A coverage table that cites a test which was renamed or never written says "proved" where
nothing proves it. This reads every table row of the document and checks each test it names:
``test_x.py::test_name`` (``::test_name`` goes on with the file named last before it, in the
row or the rows above), a bare ``test_x.py``, a bare test function ``test_name`` or a family
``test_name_*`` (found in any test file), a scenario ``name.json`` and a JS test file
(``x.test.js`` in ``client-js/test/``, ``x.test.mjs`` in ``tests/browser/``), in each table's
Proof column. Paths are under ``tests/rules/`` unless they start with ``tests/`` or
``client-js/``; a rules test file is found in ``tests/rules/`` or one of its chapter folders
(``orders/``, ``combat/``, ``table/``, ``armies/``). A row whose status starts with "done" must
name at least one test, or say "as <row>" or "row <row>" of rows that do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules-coverage.md"
RULES_TESTS = ROOT / "tests" / "rules"
SCENARIOS = RULES_TESTS / "scenarios"

_CODE = re.compile(r"`([^`]+)`")
_FILE = re.compile(r"^((?:tests|client-js/test)/[\w/]+/|client-js/test/)?"
                   r"([\w-]+\.test\.(?:js|mjs)|test_\w+\.py)(?:::(\w+\*?))?$")
_CONTINUED = re.compile(r"^::(\w+\*?)")
_FUNCTION = re.compile(r"^(test_\w+\*?)$")
_SCENARIO = re.compile(r"^\w+\.json$")
_AS_ROW = re.compile(r"\b(?:as|row) (\d{3}\.\d+)")


@dataclass(frozen=True)
class Citation:
    row: str
    paths: tuple[Path, ...]
    """Where the test is looked for: its file; for ``::name`` the files the section named
    before it; empty: every test file (a function named without its file)."""
    test: str | None


@dataclass(frozen=True)
class Row:
    id: str
    cells: tuple[str, ...]
    citations: tuple[Citation, ...]

    tooling: bool
    """A row of the project set-up (lint, types, CI), which the test command itself proves."""

    @property
    def done(self) -> bool:
        return self.cells[-1].lower().startswith("done")


def _file(folder: str | None, name: str) -> Path:
    if folder and folder != "tests/rules/":
        return ROOT / folder / name
    if name.endswith(".mjs"):
        return ROOT / "tests" / "browser" / name
    if name.endswith(".js"):
        return ROOT / "client-js" / "test" / name
    # A bare rules test file is in tests/rules/ or one of its chapter folders (orders/, ...).
    return next(RULES_TESTS.rglob(name), RULES_TESTS / name)


def _rows() -> list[Row]:
    rows: list[Row] = []
    named: list[Path] = []  # the files the section has named so far, latest first
    proof = 0  # the column of the table under way that names the tests
    tooling = False
    for line in DOC.read_text().splitlines():
        if line.startswith("#"):
            named = []
            tooling = "set-up" in line
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        cells = tuple(cell.strip() for cell in line.strip().strip("|").split("|"))
        if "Proof" in cells:
            proof = cells.index("Proof")
            continue
        found: list[Citation] = []
        for token in (t.strip() for t in _CODE.findall(cells[proof])):
            if match := _FILE.match(token.split(" ")[0]):
                path = _file(match.group(1), match.group(2))
                named.insert(0, path)
                found.append(Citation(cells[0], (path,), match.group(3)))
            elif match := _CONTINUED.match(token):
                found.append(Citation(cells[0], tuple(named) or (DOC,), match.group(1)))
            elif match := _FUNCTION.match(token):
                found.append(Citation(cells[0], (), match.group(1)))
            elif _SCENARIO.match(token):
                found.append(Citation(cells[0], (SCENARIOS / token,), None))
        rows.append(Row(cells[0], cells, tuple(found), tooling))
    return rows


@cache
def _test_sources() -> dict[Path, str]:
    tests = ROOT / "tests"
    return {p: p.read_text() for p in [*tests.rglob("test_*.py"), *tests.rglob("*.test.mjs")]}


def _defined(name: str, source: str) -> bool:
    pattern = re.escape(name.rstrip("*")) + (r"\w*" if name.endswith("*") else r"\b")
    return bool(re.search(rf"^\s*(?:async\s+)?def {pattern}", source, re.M)
                or re.search(rf"""\btest\(\s*['"`][^'"`]*{pattern}""", source))


def _exists(citation: Citation) -> bool:
    if citation.test is None:
        return citation.paths[0].exists()
    sources = ([p.read_text() for p in citation.paths if p.exists()] if citation.paths
               else list(_test_sources().values()))
    return any(_defined(citation.test, source) for source in sources)


def _where(citation: Citation) -> str:
    place = str(citation.paths[0].relative_to(ROOT)) if citation.paths else "(any test file)"
    return place + (f"::{citation.test}" if citation.test else "")


def test_the_document_cites_tests() -> None:
    # Guards the parser itself: a change of the document's format must not make the checks
    # below pass by finding nothing.
    assert sum(len(row.citations) for row in _rows()) > 300


def test_every_cited_test_exists() -> None:
    missing = [f"row {c.row}: {_where(c)}" for row in _rows() for c in row.citations if not _exists(c)]
    assert not missing, "docs/rules-coverage.md cites tests that do not exist:\n" + "\n".join(missing)


def test_every_done_row_names_a_test() -> None:
    rows = _rows()
    cited = {row.id for row in rows if row.citations}
    bare = [row.id for row in rows if row.done and not row.citations and not row.tooling
            and not any(ref in cited for cell in row.cells for ref in _AS_ROW.findall(cell))]
    assert not bare, f"rows called done that name no test: {bare}"


@pytest.mark.parametrize("name", ["test_x_*", "test_x"])
def test_a_family_or_a_name_is_found_only_where_defined(name: str) -> None:
    assert _defined(name, "def test_x_one() -> None:\n") is name.endswith("*")
    assert not _defined(name, "# test_x_one is elsewhere\n")
