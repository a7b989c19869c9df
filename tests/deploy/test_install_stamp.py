"""The install stamps of ``deploy/bin/setup`` (``deploy/install_stamp.py``), without a real
install: on a small copy of the checkout, each input of a step changes that step's stamp and
an unrelated file does not; a step runs its command only when its stamp is missing or stale,
and a command that fails, or leaves its outputs missing, leaves no stamp."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def load() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader(
        "deploy_install_stamp", str(REPO / "deploy" / "install_stamp.py"))
    spec = importlib.util.spec_from_loader("deploy_install_stamp", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


stamp = load()
COMPILED = stamp.compiled_modules(REPO)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The files the steps read (real ones where their content matters), and some they don't."""
    monkeypatch.delenv("REFEREE_PURE_PYTHON", raising=False)
    copied = ["pyproject.toml", "setup.py", "server/rules/native.py",
              *(f"server/rules/{m}.py" for m in COMPILED), "server/rules/engine.py",
              "server/rules/data/weapons.json", "client-js/package.json",
              "client-js/package-lock.json", "client-js/scripts/build.js"]
    for name in copied:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, tmp_path / name)
    written = {
        "server/__init__.py": "",
        "server/rules/__init__.py": "",
        "protocol/__init__.py": "",
        "README.md": "# readme\n",
        "tests/rules/test_x.py": "def test_x(): pass\n",
        "client-js/src/index.js": "export const a = 1;\n",
        "client-js/src/client/socket.js": "export const b = 2;\n",
        "client-js/app/main.js": "// hand-written, served as it is\n",
        "client-js/test/a.test.js": "// unit test\n",
        "client-js/node_modules/@msgpack/msgpack/dist.esm/index.mjs": "export {};\n",
        "client-js/node_modules/@msgpack/msgpack/package.json": "{}\n",
    }
    for name, text in written.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def edit(path: Path) -> None:
    with path.open("a") as file:
        file.write("\n# edited\n" if path.suffix in {".py", ".toml"} else "\n")


def test_the_compiled_modules_are_those_setup_compiles() -> None:
    assert COMPILED and "table/geometry" in COMPILED
    assert "native" in (REPO / "setup.py").read_text()


@pytest.mark.parametrize("name", ["pyproject.toml", "setup.py", "server/rules/native.py",
                                  *(f"server/rules/{m}.py" for m in COMPILED)])
def test_each_python_input_changes_the_python_stamp(root: Path, name: str) -> None:
    before = stamp.inputs("python", root)
    edit(root / name)
    after = stamp.inputs("python", root)
    assert after != before
    assert [k for k in after if after[k] != before[k]] == [name]


def test_python_stamp_follows_the_compiled_list_purity_and_package_folders(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = stamp.inputs("python", root)
    monkeypatch.setenv("REFEREE_PURE_PYTHON", "1")
    assert stamp.inputs("python", root)["REFEREE_PURE_PYTHON"] == "1"
    monkeypatch.delenv("REFEREE_PURE_PYTHON")
    assert stamp.inputs("python", root) == before
    # A module added to COMPILED_MODULES is an input from then on.
    native = root / "server" / "rules" / "native.py"
    native.write_text(native.read_text().replace('"orders/aro",\n', '"orders/aro",\n    "engine",\n', 1))
    assert "server/rules/engine.py" in stamp.inputs("python", root)
    native.write_text((REPO / "server" / "rules" / "native.py").read_text())
    (root / "server" / "newpackage").mkdir()
    assert stamp.inputs("python", root)["package folders"] != before["package folders"]


def test_the_interpreter_is_an_input(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = stamp.inputs("python", root)
    monkeypatch.setattr(stamp.sys, "version", "3.99.0 (another)")
    assert stamp.inputs("python", root)["interpreter"] != before["interpreter"]


@pytest.mark.parametrize("name", ["client-js/package.json", "client-js/package-lock.json"])
def test_each_node_input_changes_the_node_stamp(root: Path, name: str) -> None:
    before = stamp.inputs("node", root)
    edit(root / name)
    assert stamp.inputs("node", root) != before


@pytest.mark.parametrize("name", ["client-js/src/index.js", "client-js/src/client/socket.js",
                                  "client-js/scripts/build.js", "client-js/package.json",
                                  "server/rules/data/weapons.json",
                                  "client-js/node_modules/@msgpack/msgpack/dist.esm/index.mjs"])
def test_each_build_input_changes_the_build_stamp(root: Path, name: str) -> None:
    before = stamp.inputs("build", root)
    edit(root / name)
    assert stamp.inputs("build", root) != before


def test_a_new_or_removed_source_file_changes_the_build_stamp(root: Path) -> None:
    before = stamp.inputs("build", root)
    (root / "client-js" / "src" / "new.js").write_text("export {};\n")
    assert stamp.inputs("build", root) != before
    (root / "client-js" / "src" / "new.js").unlink()
    assert stamp.inputs("build", root) == before
    (root / "client-js" / "src" / "client" / "socket.js").unlink()
    assert stamp.inputs("build", root) != before


@pytest.mark.parametrize("name", ["README.md", "tests/rules/test_x.py", "server/rules/engine.py",
                                  "client-js/app/main.js", "client-js/test/a.test.js",
                                  "client-js/node_modules/@msgpack/msgpack/package.json"])
def test_an_unrelated_file_changes_no_stamp(root: Path, name: str) -> None:
    before = {step: stamp.inputs(step, root) for step in stamp.STEPS}
    edit(root / name)
    (root / "server" / "rules" / "__pycache__").mkdir()
    (root / "server" / "rules" / "__pycache__" / "x.pyc").write_bytes(b"x")
    assert {step: stamp.inputs(step, root) for step in stamp.STEPS} == before


def test_a_touch_without_a_change_is_no_change(root: Path) -> None:
    before = stamp.inputs("python", root)
    (root / "server" / "rules" / "geometry.py").touch()
    assert stamp.inputs("python", root) == before


BUILD = """
import pathlib, sys
app = pathlib.Path("client-js/app")
with open("runs.txt", "a") as runs:
    runs.write("run\\n")
if sys.argv[1] == "fail":
    (app / "lib").mkdir(parents=True, exist_ok=True)
    sys.exit(3)
if sys.argv[1] == "build":
    (app / "lib").mkdir(parents=True, exist_ok=True)
    (app / "lib" / "index.js").write_text(pathlib.Path("client-js/src/index.js").read_text())
    (app / "vendor" / "msgpack").mkdir(parents=True, exist_ok=True)
    (app / "vendor" / "msgpack" / "index.mjs").write_text("export {};")
    (app / "weapons.json").write_text("{}")
if sys.argv[2:] == ["edit"]:
    with open("client-js/src/index.js", "a") as source:
        source.write("// edited while the build ran\\n")
"""


def build(root: Path, mode: str = "build", *extra: str) -> int:
    (root / "fake_build.py").write_text(BUILD)
    return int(stamp.run("build", [sys.executable, "fake_build.py", mode, *extra], root))


def runs(root: Path) -> int:
    path = root / "runs.txt"
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_a_step_runs_only_when_its_stamp_is_stale(root: Path) -> None:
    assert stamp.stale_reason("build", root) is not None
    assert build(root) == 0 and runs(root) == 1
    assert stamp.stale_reason("build", root) is None
    assert build(root) == 0 and runs(root) == 1  # nothing changed: skipped
    edit(root / "client-js" / "src" / "index.js")
    assert "client-js/src/index.js" in stamp.stale_reason("build", root)
    assert build(root) == 0 and runs(root) == 2
    assert build(root) == 0 and runs(root) == 2


def test_a_changed_or_missing_output_runs_the_step_again(root: Path) -> None:
    assert build(root) == 0 and runs(root) == 1
    (root / "client-js" / "app" / "lib" / "index.js").write_text("// edited by hand\n")
    assert stamp.stale_reason("build", root) == "what it installed was changed or removed since"
    assert build(root) == 0 and runs(root) == 2
    shutil.rmtree(root / "client-js" / "app" / "vendor")
    assert "not built" in stamp.stale_reason("build", root)
    assert build(root) == 0 and runs(root) == 3
    assert build(root) == 0 and runs(root) == 3


def test_a_failed_step_leaves_no_stamp(root: Path) -> None:
    assert build(root) == 0 and runs(root) == 1
    edit(root / "client-js" / "src" / "index.js")
    assert build(root, "fail") == 3
    assert not stamp.stamp_path("build", root).exists()  # the old one is gone too
    assert build(root) == 0 and runs(root) == 3


def test_a_step_whose_outputs_are_missing_is_not_stamped(root: Path) -> None:
    assert build(root, "nothing") == 1
    assert not stamp.stamp_path("build", root).exists()


def test_the_stamp_holds_the_inputs_read_before_the_command(root: Path) -> None:
    assert build(root, "build", "edit") == 0
    recorded = json.loads(stamp.stamp_path("build", root).read_text())["inputs"]
    assert recorded != stamp.inputs("build", root)
    assert stamp.stale_reason("build", root) is not None  # so the next run builds again
    assert build(root) == 0 and runs(root) == 2


def test_python_outputs_match_purity(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stamp, "installed_distribution", lambda root: "0.1.0 file:///x")
    rules = root / "server" / "rules"
    with pytest.raises(stamp.NotInstalled, match="is not compiled"):
        stamp.outputs("python", root)
    for module in COMPILED:
        (rules / f"{module}.cpython-311-x86_64-linux-gnu.so").write_bytes(b"so")
    with pytest.raises(stamp.NotInstalled, match=r"native_sources\.json"):
        stamp.outputs("python", root)
    (rules / "native_sources.json").write_text("{}")
    compiled = stamp.outputs("python", root)
    (rules / "table" / "geometry.cpython-311-x86_64-linux-gnu.so").write_bytes(b"rebuilt")
    assert stamp.outputs("python", root) != compiled
    monkeypatch.setenv("REFEREE_PURE_PYTHON", "1")
    with pytest.raises(stamp.NotInstalled, match="REFEREE_PURE_PYTHON=1"):
        stamp.outputs("python", root)
    for extension in rules.rglob("*.so"):
        extension.unlink()
    stamp.outputs("python", root)


def test_the_running_interpreter_has_this_checkout_installed() -> None:
    """The test environment is the one deploy/bin/setup python made (an editable install)."""
    try:
        stamp.installed_distribution(REPO)
    except stamp.NotInstalled as why:
        pytest.skip(f"not run from this checkout's editable install: {why}")


def test_the_setup_script_stamps_every_step_it_installs() -> None:
    setup = (REPO / "deploy" / "bin" / "setup").read_text()
    for step in stamp.STEPS:
        assert f"install_stamp.py {step} " in setup or f"stamp {step} " in setup
    assert "setup python node build" in (REPO / "deploy" / "bin" / "serve").read_text()
