"""Compiles the rules core's geometry modules with mypyc (``server/rules/native.py`` lists
them and says why); everything else is in ``pyproject.toml``.

``REFEREE_PURE_PYTHON=1`` builds nothing: every module then runs from its source.
"""

from __future__ import annotations

import os
import runpy
from pathlib import Path

from setuptools import setup

RULES = Path(__file__).resolve().parent / "server" / "rules"
# Read without importing the package: its __init__ refuses stale builds, which this rebuilds.
native = runpy.run_path(str(RULES / "native.py"))

# Earlier builds go first: a build that fails then leaves the sources to run (and says so
# at start-up), never an old extension under a manifest that vouches for the new sources.
native["remove_builds"](RULES)
extensions = []
if os.environ.get("REFEREE_PURE_PYTHON") != "1":
    from mypyc.build import mypycify

    extensions = mypycify([f"server/rules/{module}.py" for module in native["COMPILED_MODULES"]],
                          opt_level="3", group_name="referee_rules")
    native["write_manifest"](RULES)

setup(ext_modules=extensions)
