"""Every repository path the README and the docs cite in backticks exists.

A reader follows `server/rooms/room.py` or `tests/rules/` from a doc to the code; a path that
moved without its docs sends them nowhere. This reads README.md and every Markdown file under
docs/ (not CHANGELOG.md: history may cite the paths of its day), takes each backticked token
that starts with a top-level folder of the code, and fails listing every one that names
nothing. A token is read as a path up to its first space or ``::`` (a command's arguments,
a test's name); ``{a,b}`` is expanded; ``*`` matches as a glob.
"""

from __future__ import annotations

import itertools
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOP_FOLDERS = ("server", "tests", "client-js", "bench", "deploy", "protocol", "testkit")

_CODE = re.compile(r"`([^`\n]+)`")
_PATH = re.compile(rf"^(?:{'|'.join(re.escape(f) for f in TOP_FOLDERS)})/[\w./*{{}},-]*$")
_BRACES = re.compile(r"\{([^{}]*)\}")

def _documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _cited(text: str) -> set[str]:
    paths = set()
    for token in _CODE.findall(text):
        word = token.strip().split(" ")[0].split("::")[0].rstrip(".,;:")
        if _PATH.match(word):
            paths.add(word)
    return paths


def _expanded(path: str) -> list[str]:
    parts = _BRACES.split(path)  # literal, alternatives, literal, ...
    choices = [[p] if i % 2 == 0 else p.split(",") for i, p in enumerate(parts)]
    return ["".join(combo) for combo in itertools.product(*choices)]


def _exists(path: str) -> bool:
    if "*" in path:
        return any(ROOT.glob(path.rstrip("/")))
    return (ROOT / path).exists() or _build_output(path)


def _build_output(path: str) -> bool:
    """A path git ignores (``client-js/app/lib``: the build writes it) counts as cited rightly."""
    # (``dir/`` patterns match an absent path only when it is asked for as a folder)
    return any(subprocess.run(["git", "check-ignore", "-q", asked], cwd=ROOT,
                              check=False).returncode == 0
               for asked in (path, path.rstrip("/") + "/"))


def _missing() -> list[str]:
    missing = []
    for document in _documents():
        for cited in sorted(_cited(document.read_text())):
            absent = [p for p in _expanded(cited) if not _exists(p)]
            if absent:
                missing.append(f"{document.relative_to(ROOT)}: `{cited}` ({', '.join(absent)})")
    return missing


def test_every_cited_path_exists() -> None:
    missing = _missing()
    assert not missing, "paths cited in the docs that do not exist:\n" + "\n".join(missing)


def test_the_docs_cite_paths() -> None:
    # Guards the reader: a change in how tokens are read must not pass by finding nothing.
    assert sum(len(_cited(d.read_text())) for d in _documents()) > 100


def test_tokens_are_read_as_paths() -> None:
    assert _cited("`server/app.py`, `deploy/bin/loopback run`, `tests/x.py::test_y`, `x.py`") == {
        "server/app.py", "deploy/bin/loopback", "tests/x.py"}
    assert _expanded("tests/rules/{orders,combat}/") == ["tests/rules/orders/", "tests/rules/combat/"]
    assert _exists("server/") and _exists("tests/rules/scenarios/*.json")
    assert not _exists("server/no_such_module.py")
