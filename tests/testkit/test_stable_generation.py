"""``testkit.fuzz.harness.drive``: a derandomized run gives the same examples whatever else
the process has imported, so the fuzz tests send the same requests in any test order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

EXAMPLES = """
import json, sys
if sys.argv[1] == "more-code":
    import literals  # a module full of string literals hypothesis may draw from
from hypothesis import strategies as st
from testkit.fuzz.harness import drive
seen = []
drive(300, st.lists(st.text(max_size=6), max_size=3), seen.append)
print(json.dumps(seen))
"""


def examples(tmp_path: Path, imports: str) -> list[list[str]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    done = subprocess.run([sys.executable, "-c", EXAMPLES, imports], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)


def test_a_derandomized_drive_gives_the_same_examples_whatever_else_is_imported(
        tmp_path: Path) -> None:
    words = [f"lit{i}" for i in range(200)]
    (tmp_path / "literals.py").write_text(f"WORDS = {words!r}\n")
    plain = examples(tmp_path, "nothing-more")
    with_more_code = examples(tmp_path, "more-code")
    assert plain == with_more_code
    assert not {text for value in with_more_code for text in value} & set(words)
