"""``docs/rules-coverage.md`` names, for every rule it calls done, tests that exist.

A coverage table that cites a test which was renamed or never written says "proved" where
nothing proves it. This reads every table of the document and checks each name in its Tests
column by NAME, wherever it lives, so that moving test files between folders changes nothing:

* a test function ``test_x`` or a family ``test_x_*``: a ``def`` of that name in any Python
  file under ``tests/``, or a JS test (``test('test_x ...``) under ``tests/``;
* a whole test module ``test_x.py``: a file of that name under ``tests/``;
* a scenario ``x.json`` (or ``x*.json``): a file of that name under ``tests/``;
* a JS test file ``x.test.mjs`` / ``x.test.js``: a file of that name under ``tests/`` or
  ``client-js/test/``.

Anything else in backticks in the Tests column fails: a citation nobody checks proves
nothing. A row whose status starts with "done" must name a test, or say "as <row>" of rows
that do; the project set-up rows are proved by the test command itself.

Implementation test: no rule section."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules-coverage.md"
TESTS = ROOT / "tests"
JS_TESTS = ROOT / "client-js" / "test"

_CODE = re.compile(r"`([^`]+)`")
_FUNCTION = re.compile(r"^test_\w+\*?$")
_MODULE = re.compile(r"^test_\w+\.py$")
_SCENARIO = re.compile(r"^[\w*]+\.json$")
_JS_FILE = re.compile(r"^[\w-]+\.test\.m?js$")
_AS_ROW = re.compile(r"\b(?:as|row) (\d{3}\.\d+)")


@dataclass(frozen=True)
class Row:
    id: str
    cells: tuple[str, ...]
    tests: tuple[str, ...]
    tooling: bool
    """A row of the project set-up (lint, types, CI), which the test command itself proves."""

    @property
    def done(self) -> bool:
        return self.cells[2].lower().startswith("done")


def _rows() -> list[Row]:
    rows: list[Row] = []
    column: int | None = None
    tooling = False
    for line in DOC.read_text().splitlines():
        if line.startswith("#"):
            column = None
            tooling = "set-up" in line
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        cells = tuple(cell.strip() for cell in line.strip().strip("|").split("|"))
        if "Tests" in cells:
            column = cells.index("Tests")
            continue
        assert column is not None, f"a table row before its header: {line}"
        tests = tuple(token.strip() for token in _CODE.findall(cells[column]))
        rows.append(Row(cells[0], cells, tests, tooling))
    return rows


@cache
def _files() -> tuple[Path, ...]:
    return tuple(p for p in [*TESTS.rglob("*"), *JS_TESTS.rglob("*")]
                 if p.is_file() and "node_modules" not in p.parts)


_DEF = re.compile(r"^\s*(?:async\s+)?def (\w+)", re.M)
_JS_TITLE = re.compile(r"""\btest\(\s*['"`]([^'"`]*)""")


@dataclass(frozen=True)
class Defined:
    """What test sources define, read in one pass: every ``def`` name and the start of every
    JS test's title (up to its first quote). The document cites over a thousand names: one
    search of every source per name took most of a minute."""

    names: frozenset[str]
    titles: tuple[str, ...]

    @classmethod
    def of(cls, sources: tuple[str, ...]) -> Defined:
        return cls(frozenset(name for source in sources for name in _DEF.findall(source)),
                   tuple(title for source in sources for title in _JS_TITLE.findall(source)))

    def has(self, name: str) -> bool:
        """A ``def`` of ``name`` (of a name starting ``test_x_`` for the family ``test_x_*``),
        or a JS test whose title holds it as a word."""
        stem = name.rstrip("*")
        family = name.endswith("*")
        if any(d.startswith(stem) for d in self.names) if family else stem in self.names:
            return True
        pattern = re.compile(re.escape(stem) + (r"\w*" if family else r"\b"))
        return any(pattern.search(title) for title in self.titles)


@cache
def _defined_in_tests() -> Defined:
    return Defined.of(tuple(p.read_text() for p in _files()
                            if p.suffix == ".py" or p.name.endswith((".test.mjs", ".test.js"))))


def _defined(name: str, source: str) -> bool:
    return Defined.of((source,)).has(name)


def _file_named(pattern: str, *, under_tests_only: bool = True) -> bool:
    return any(p.match(pattern) for p in _files()
               if not under_tests_only or TESTS in p.parents)


def _exists(name: str) -> bool | None:
    """Whether the cited test exists; None for a citation of no kind this check knows."""
    if _MODULE.match(name):
        return _file_named(name)
    if _FUNCTION.match(name):
        return _defined_in_tests().has(name)
    if _SCENARIO.match(name):
        return _file_named(name)
    if _JS_FILE.match(name):
        return _file_named(name, under_tests_only=False)
    return None


def test_the_document_cites_tests() -> None:
    # Guards the parser itself: a change of the document's format must not make the checks
    # below pass by finding nothing.
    assert sum(len(row.tests) for row in _rows()) > 500


def test_every_cited_test_exists() -> None:
    missing = [f"row {row.id or row.cells[1][:40]}: {name}" for row in _rows()
               for name in row.tests if _exists(name) is False]
    assert not missing, "docs/rules-coverage.md cites tests that do not exist:\n" + "\n".join(missing)


def test_the_tests_column_holds_only_test_names() -> None:
    unknown = [f"row {row.id or row.cells[1][:40]}: {name}" for row in _rows()
               for name in row.tests if _exists(name) is None]
    assert not unknown, "not a test name (function, module, scenario, JS test):\n" + "\n".join(unknown)


def test_every_done_row_names_a_test() -> None:
    rows = _rows()
    cited = {row.id for row in rows if row.tests}
    bare = [row.id or row.cells[1] for row in rows if row.done and not row.tests and not row.tooling
            and not any(ref in cited for cell in row.cells for ref in _AS_ROW.findall(cell))]
    assert not bare, f"rows called done that name no test: {bare}"


@pytest.mark.parametrize("name", ["test_x_*", "test_x"])
def test_a_family_or_a_name_is_found_only_where_defined(name: str) -> None:
    assert _defined(name, "def test_x_one() -> None:\n") is name.endswith("*")
    assert not _defined(name, "# test_x_one is elsewhere\n")


def test_a_name_is_found_in_any_folder() -> None:
    # Test files move between folders: a citation holds as long as the name exists somewhere.
    assert _exists("test_a_family_or_a_name_is_found_only_where_defined")
    assert _exists(Path(__file__).name)
    assert not _exists("test_no_such_test_anywhere_in_this_repository")
    assert _exists("tests/rules/test_x.py") is None
