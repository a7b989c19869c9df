"""Which modules of the rules core run compiled, and a guard against running stale ones.

The geometry behind Line of Fire, Zone of Control and ARO eligibility is most of the rules
core's CPU (docs/performance.md). ``setup.py`` compiles these modules with mypyc, from the
same source, into C extensions placed beside it (``<module>.cpython-*.so``); Python then
imports the extension instead of the ``.py``. Same decisions: ``bench.rules_cost``'s
fingerprint and the whole test suite run against the compiled modules.

A compiled module shadows its source, so an edit to the source would silently not run
until the next build. ``check_fresh`` refuses that: the build records a digest of each
source it compiled (``native_sources.json``, written by ``setup.py``), and importing
``server.rules`` raises if a compiled module's source no longer matches it.
``REFEREE_PURE_PYTHON=1`` at install time builds nothing (and removes old extensions):
every module then runs from its source, and ``status`` says so.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

COMPILED_MODULES = (
    "table/geometry",
    "table/polygons",
    "table/sight_lines",
    "table/line_of_fire",
    "table/route_sight",
    "table/routes",
    "table/zone_of_control",
    "table/engaged",
    "orders/aro",
    "orders/aro_eligibility",
)
"""Modules of ``server.rules`` that ``setup.py`` compiles, as paths below ``server/rules``
without ``.py``: no dataclass among them is read back by ``plain`` (mypyc erases generic
annotations such as ``tuple[float, float]``)."""

PACKAGE_DIR = Path(__file__).resolve().parent
MANIFEST = "native_sources.json"
"""Each compiled module's source digest at build time, beside the extensions."""


class StaleCompiledModule(ImportError):
    """A compiled module is older than its source: it would run the old code."""


def extension_of(module: str, package_dir: Path = PACKAGE_DIR) -> Path | None:
    """The compiled extension of ``module`` beside its source, if built."""
    found = sorted(package_dir.glob(f"{module}.*.so"))
    return found[0] if found else None


def source_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_manifest(package_dir: Path = PACKAGE_DIR) -> None:
    """Record the sources being compiled (``setup.py``, when it builds the extensions)."""
    digests = {m: source_digest(package_dir / f"{m}.py") for m in COMPILED_MODULES}
    (package_dir / MANIFEST).write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")


def remove_builds(package_dir: Path = PACKAGE_DIR) -> None:
    """Delete the extensions and their manifest (a build that compiles nothing)."""
    for module in COMPILED_MODULES:
        for extension in package_dir.glob(f"{module}.*.so"):
            extension.unlink()
    (package_dir / MANIFEST).unlink(missing_ok=True)


def check_fresh(package_dir: Path = PACKAGE_DIR) -> None:
    """Raise ``StaleCompiledModule`` if a compiled module's source changed after its build."""
    built = {m: extension_of(m, package_dir) for m in COMPILED_MODULES}
    if not any(built.values()):
        return
    manifest = package_dir / MANIFEST
    recorded = json.loads(manifest.read_text()) if manifest.exists() else {}
    for module, extension in built.items():
        if extension is not None and (
                recorded.get(module) != source_digest(package_dir / f"{module}.py")):
            raise StaleCompiledModule(
                f"server/rules/{module}.py changed after it was compiled, and the compiled "
                f"{extension.name} would run instead of it: rebuild with "
                "`bash deploy/bin/setup python` (or set REFEREE_PURE_PYTHON=1 for it to "
                "build nothing and run the sources)")


def status(package_dir: Path = PACKAGE_DIR) -> str:
    """One line for the server's start-up log: compiled, interpreted, or a mix."""
    compiled = [m for m in COMPILED_MODULES if extension_of(m, package_dir) is not None]
    if len(compiled) == len(COMPILED_MODULES):
        return f"rules core: {len(compiled)} geometry modules compiled with mypyc"
    if not compiled:
        return ("rules core: interpreted (no compiled modules: a REFEREE_PURE_PYTHON=1 install, "
                "or a build that failed)")
    missing = sorted(set(COMPILED_MODULES) - set(compiled))
    return f"rules core: partly compiled, interpreted: {', '.join(missing)}"
