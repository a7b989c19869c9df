"""The compiled rules modules: the suite runs them, and a stale one is refused.

Implementation test: no rule section."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

from server.rules import native

PURE = os.environ.get("REFEREE_PURE_PYTHON") == "1"


@pytest.mark.skipif(PURE, reason="REFEREE_PURE_PYTHON=1: built without compiled modules")
def test_the_suite_runs_the_compiled_modules() -> None:
    for name in native.COMPILED_MODULES:
        module = importlib.import_module(f"server.rules.{name.replace('/', '.')}")
        assert module.__file__ is not None and module.__file__.endswith(".so"), module.__file__
    assert native.status() == (
        f"rules core: {len(native.COMPILED_MODULES)} geometry modules compiled with mypyc")


def _package(directory: Path, *, compiled: tuple[str, ...], edited: str | None = None
             ) -> Path:
    """A package directory with every listed module's source, extensions built for
    ``compiled`` (and their manifest), and ``edited``'s source changed after the build."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in native.COMPILED_MODULES:
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / f"{name}.py").write_text(f"# {name}\n")
    if compiled:
        native.write_manifest(directory)
    for name in compiled:
        (directory / f"{name}.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    if edited is not None:
        (directory / f"{edited}.py").write_text(f"# {edited}, edited\n")
    return directory


def test_a_source_edited_after_its_build_is_refused(tmp_path: Path) -> None:
    package = _package(tmp_path, compiled=native.COMPILED_MODULES, edited="orders/aro")
    with pytest.raises(native.StaleCompiledModule, match=r"server/rules/orders/aro\.py changed"):
        native.check_fresh(package)


def test_an_extension_without_its_manifest_is_refused(tmp_path: Path) -> None:
    package = _package(tmp_path, compiled=native.COMPILED_MODULES)
    (package / native.MANIFEST).unlink()
    with pytest.raises(native.StaleCompiledModule):
        native.check_fresh(package)


def test_fresh_extensions_and_plain_sources_pass(tmp_path: Path) -> None:
    native.check_fresh(_package(tmp_path / "compiled", compiled=native.COMPILED_MODULES))
    # An edited source with no extension runs as it is: nothing stale shadows it.
    native.check_fresh(_package(tmp_path / "interpreted", compiled=(), edited="orders/aro"))


def test_removing_the_builds_leaves_the_sources(tmp_path: Path) -> None:
    package = _package(tmp_path, compiled=native.COMPILED_MODULES, edited="orders/aro")
    native.remove_builds(package)
    native.check_fresh(package)
    assert sorted(str(p.relative_to(package)) for p in package.rglob("*.*")) == sorted(
        f"{name}.py" for name in native.COMPILED_MODULES)


def test_status_names_what_runs_interpreted(tmp_path: Path) -> None:
    assert native.status(_package(tmp_path / "all", compiled=native.COMPILED_MODULES)) == (
        f"rules core: {len(native.COMPILED_MODULES)} geometry modules compiled with mypyc")
    assert native.status(_package(tmp_path / "none", compiled=())).startswith(
        "rules core: interpreted")
    rest = sorted(set(native.COMPILED_MODULES) - {"table/geometry"})
    assert native.status(_package(tmp_path / "some", compiled=("table/geometry",))) == (
        f"rules core: partly compiled, interpreted: {', '.join(rest)}")
