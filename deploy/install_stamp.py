"""Skip an install step of ``deploy/bin/setup`` when what it installed still matches its sources.

    python deploy/install_stamp.py STEP [--root DIR] [--cwd DIR] -- COMMAND [ARG ...]
    python deploy/install_stamp.py STEP --check        (exit 0: up to date, 1: not)

STEP is ``python`` (the editable install into ``.venv``, which compiles the rules core's
geometry modules with mypyc; run this script with ``.venv/bin/python`` for that step: the
interpreter is one of its inputs), ``node`` (``npm ci`` in ``client-js``) or ``build``
(``npm run build``: ``client-js/app/lib``, ``app/vendor/msgpack``, ``app/weapons.json``).

Each step has a stamp: a JSON file beside what it installed (``.venv/.referee-install.json``,
``client-js/node_modules/.referee-install-node.json`` and ``...-build.json``) that records a
digest of each of the step's inputs (below) and a digest of its outputs. When both digests
are still what the stamp says, the step is skipped and COMMAND is not run. Otherwise the stamp
is deleted, COMMAND runs, and only if it exits 0 and its outputs are there is a new stamp
written (atomically), holding the inputs as they were read BEFORE the command ran: a source
edited during the install makes the next run install again. A failed or interrupted install
leaves no stamp.

Inputs (``inputs()``; exactly what the step reads):

- python: ``pyproject.toml``, ``setup.py``, ``server/rules/native.py`` and the sources of the
  modules it lists in ``COMPILED_MODULES`` (what mypyc compiles), the interpreter (version,
  ABI), ``REFEREE_PURE_PYTHON`` (build nothing), the checkout's path (the editable install
  points at it) and the package folders under ``server/`` and ``protocol/`` (what setuptools
  maps). Other modules of the rules core are not compiled and run from their source.
- node: ``client-js/package.json``, ``client-js/package-lock.json``, ``node --version``.
- build: ``client-js/package.json``, ``client-js/scripts/build.js``, every file under
  ``client-js/src/``, ``server/rules/data/weapons.json`` and the msgpack ES module build
  (``node_modules/@msgpack/msgpack/dist.esm``) that ``build.js`` copies.

Outputs (``outputs()``): python: the compiled extensions and their manifest
(``server/rules/native_sources.json``), none at all when pure, and the editable install of
``infinity-referee`` in the running interpreter, pointing at this checkout; node: npm's own
record of ``node_modules`` (``node_modules/.package-lock.json``); build: every generated file.
So a deleted ``.venv``, a removed extension or an edited generated file also runs the step.

Standard library only (it runs before anything is installed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import runpy
import subprocess
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEPS = ("python", "node", "build")
STAMP_VERSION = 1


class NotInstalled(Exception):
    """An output of the step is missing: it must run."""


def file_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return "missing"


def tree_files(folder: Path, skip_suffixes: tuple[str, ...] = ()) -> list[Path]:
    """Every file under ``folder``, sorted (none if it does not exist)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith(skip_suffixes))


def digests_of(root: Path, paths: Iterable[Path]) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): file_digest(p) for p in paths}


def compiled_modules(root: Path) -> tuple[str, ...]:
    # Read like setup.py does: without importing server.rules (its __init__ refuses stale builds).
    native = runpy.run_path(str(root / "server" / "rules" / "native.py"))
    return tuple(native["COMPILED_MODULES"])


def pure_python() -> bool:
    return os.environ.get("REFEREE_PURE_PYTHON") == "1"


def tool_version(*command: str) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    except OSError:
        return "not installed"
    return done.stdout.strip() if done.returncode == 0 else f"exit {done.returncode}"


def package_folders(root: Path) -> list[str]:
    folders = []
    for top in ("server", "protocol"):
        base = root / top
        if base.is_dir():
            folders.append(top)
            folders += sorted(p.relative_to(root).as_posix() for p in base.rglob("*")
                              if p.is_dir() and "__pycache__" not in p.parts)
    return folders


def inputs(step: str, root: Path = ROOT) -> dict[str, str]:
    """Name -> digest of everything the step's result depends on."""
    if step == "python":
        rules = root / "server" / "rules"
        found = digests_of(root, [root / "pyproject.toml", root / "setup.py", rules / "native.py"])
        found |= digests_of(root, [rules / f"{m}.py" for m in compiled_modules(root)])
        found["interpreter"] = (f"{sys.version} {sys.implementation.cache_tag} "
                                f"{sysconfig.get_config_var('EXT_SUFFIX')}")
        found["REFEREE_PURE_PYTHON"] = "1" if pure_python() else ""
        found["checkout"] = str(root.resolve())
        found["package folders"] = hashlib.sha256(
            "\n".join(package_folders(root)).encode()).hexdigest()
        return found
    client = root / "client-js"
    if step == "node":
        found = digests_of(root, [client / "package.json", client / "package-lock.json"])
        found["node --version"] = tool_version("node", "--version")
        return found
    if step == "build":
        found = digests_of(root, [client / "package.json", client / "scripts" / "build.js",
                                  root / "server" / "rules" / "data" / "weapons.json"])
        found |= digests_of(root, tree_files(client / "src"))
        found |= digests_of(root, tree_files(
            client / "node_modules" / "@msgpack" / "msgpack" / "dist.esm"))
        return found
    raise ValueError(f"unknown step: {step}")


def installed_distribution(root: Path) -> str:
    """The editable install of the project in the running interpreter, if it points here."""
    from importlib import metadata
    # Only the interpreter's own site-packages: the checkout holds an ``*.egg-info`` of the
    # build that metadata would find first from a working directory on sys.path.
    site = sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})
    found = list(metadata.distributions(name="infinity-referee", path=site))
    if not found:
        raise NotInstalled("infinity-referee is not installed in this interpreter")
    distribution = found[0]
    direct_url = json.loads(distribution.read_text("direct_url.json") or "{}")
    url = direct_url.get("url", "")
    if url != root.resolve().as_uri():
        raise NotInstalled(f"infinity-referee is installed from {url or 'elsewhere'}, "
                           f"not {root.resolve().as_uri()}")
    return f"{distribution.version} {url}"


def outputs(step: str, root: Path = ROOT) -> str:
    """A digest of what the step produced; raises ``NotInstalled`` if some of it is missing."""
    digest = hashlib.sha256()

    def add(name: str, value: str) -> None:
        digest.update(f"{name}\0{value}\n".encode())

    if step == "python":
        add("distribution", installed_distribution(root))
        rules = root / "server" / "rules"
        built: list[Path] = []
        for module in compiled_modules(root):
            extensions = sorted(rules.glob(f"{module}.*.so"))
            if pure_python() and extensions:
                raise NotInstalled(f"compiled {extensions[0].name} is there, REFEREE_PURE_PYTHON=1")
            if not pure_python() and not extensions:
                raise NotInstalled(f"server/rules/{module}.py is not compiled")
            built += extensions
        if not pure_python():
            built += sorted(root.glob("referee_rules__mypyc*.so"))
            manifest = rules / "native_sources.json"
            if not manifest.is_file():
                raise NotInstalled("server/rules/native_sources.json is missing")
            built.append(manifest)
        for name, value in digests_of(root, built).items():
            add(name, value)
    elif step == "node":
        record = root / "client-js" / "node_modules" / ".package-lock.json"
        if not record.is_file():
            raise NotInstalled("client-js/node_modules is not installed")
        add(record.name, file_digest(record))
    elif step == "build":
        app = root / "client-js" / "app"
        for part in (app / "lib", app / "vendor", app / "weapons.json"):
            if not part.exists():
                raise NotInstalled(f"client-js/app is not built: no {part.relative_to(root).as_posix()}")
        generated = [*tree_files(app / "lib"), *tree_files(app / "vendor"), app / "weapons.json"]
        for name, value in digests_of(root, generated).items():
            add(name, value)
    else:
        raise ValueError(f"unknown step: {step}")
    return digest.hexdigest()


def stamp_path(step: str, root: Path = ROOT) -> Path:
    if step == "python":
        return root / ".venv" / ".referee-install.json"
    return root / "client-js" / "node_modules" / f".referee-install-{step}.json"


def stale_reason(step: str, root: Path = ROOT, current: dict[str, str] | None = None) -> str | None:
    """None when the step is up to date, else why it must run."""
    current = inputs(step, root) if current is None else current
    try:
        stamp = json.loads(stamp_path(step, root).read_text())
    except FileNotFoundError:
        return "not installed by this script yet (no stamp)"
    except (OSError, ValueError):
        return "its stamp is unreadable"
    if not isinstance(stamp, dict) or stamp.get("version") != STAMP_VERSION:
        return "its stamp is from another version of this script"
    recorded = stamp.get("inputs", {})
    changed = sorted(name for name in current.keys() | recorded.keys()
                     if current.get(name) != recorded.get(name))
    if changed:
        shown = ", ".join(changed[:4]) + (f" and {len(changed) - 4} more" if len(changed) > 4 else "")
        return f"changed since the last install: {shown}"
    try:
        produced = outputs(step, root)
    except NotInstalled as missing:
        return str(missing)
    if produced != stamp.get("outputs"):
        return "what it installed was changed or removed since"
    return None


def write_stamp(step: str, root: Path, recorded: dict[str, str]) -> None:
    path = stamp_path(step, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"version": STAMP_VERSION, "step": step, "inputs": recorded,
            "outputs": outputs(step, root)}
    temporary = path.with_name(path.name + f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n")
    os.replace(temporary, path)


def run(step: str, command: list[str], root: Path = ROOT, cwd: Path | None = None) -> int:
    """Run ``command`` unless the step is up to date; stamp it if it succeeds."""
    before = inputs(step, root)
    reason = stale_reason(step, root, before)
    if reason is None:
        print(f"setup {step}: up to date, skipped", file=sys.stderr)
        return 0
    print(f"setup {step}: installing ({reason})", file=sys.stderr)
    stamp_path(step, root).unlink(missing_ok=True)
    returncode = subprocess.run(command, cwd=cwd or root, check=False).returncode
    if returncode != 0:
        return returncode
    try:
        write_stamp(step, root, before)
    except NotInstalled as missing:
        print(f"setup {step}: the install succeeded but {missing}; not stamped", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=STEPS)
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--cwd", type=Path, default=None, help="where COMMAND runs (default --root)")
    parser.add_argument("--check", action="store_true", help="only say whether the step is up to date")
    argv = sys.argv[1:] if argv is None else argv
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    command = argv[split + 1:]
    if args.check:
        reason = stale_reason(args.step, args.root)
        print(f"{args.step}: {reason or 'up to date'}")
        return 0 if reason is None else 1
    if not command:
        parser.error("no command given")
    return run(args.step, command, args.root, args.root / args.cwd if args.cwd else None)


if __name__ == "__main__":
    sys.exit(main())
