"""Every rules test names the rule it proves (tests/README.md, "Naming").

A test under ``tests/rules`` cites its rule when its name, its docstring or its module's
docstring names a seed step (``seed 000.12``, ``seed_002``) or a DIGEST section
(``DIGEST 7.4``, ``DIGEST W6``, ``digest_3_4``). A module that tests the implementation
rather than a rule (fast paths, plain data, the scenario runner, compiled modules) says so in
its docstring with the phrase below, which counts as its citation.

Implementation test: no rule section."""

from __future__ import annotations

import ast
import re
from pathlib import Path

RULES_TESTS = Path(__file__).resolve().parent
IMPLEMENTATION = "Implementation test: no rule section."
# "seed 000", "seeds 002", "test_seed_004_...", "DIGEST 7.4", "DIGEST section 16", "DIGEST W6",
# "test_digest_3_4_...": a letter right before the word would make it part of another word.
CITATION = re.compile(r"(?<![a-z])seeds?[ _]\d{3}|(?<![a-z])digest[ _](?:section )?W?\d", re.IGNORECASE)


def _cites(text: str | None) -> bool:
    return text is not None and (CITATION.search(text) is not None or IMPLEMENTATION in text)


def _tests(body: list[ast.stmt]) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The module's test functions, and those of its ``Test`` classes, as pytest collects them."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for node in body:
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            found += _tests(node.body)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            found.append(node)
    return found


def uncited_tests(root: Path) -> list[str]:
    """``path:line name`` of every test under ``root`` that cites no seed step nor DIGEST section."""
    uncited: list[str] = []
    for path in sorted(root.rglob("test_*.py")):
        module = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        if _cites(ast.get_docstring(module)):
            continue
        uncited += [
            f"{path.relative_to(root.parent.parent)}:{test.lineno} {test.name}"
            for test in _tests(module.body)
            if not (_cites(test.name) or _cites(ast.get_docstring(test)))
        ]
    return uncited


def test_every_rules_test_cites_a_seed_step_or_a_digest_section() -> None:
    uncited = uncited_tests(RULES_TESTS)
    assert not uncited, (
        f"{len(uncited)} rules tests cite no seed step or DIGEST section; add one to the test's "
        f"docstring (or '{IMPLEMENTATION}' to its module's):\n" + "\n".join(uncited)
    )

