"""The rules core's modules import one another one way: no import circle.

The graph is read from the sources with ``ast``, so it sees every import a module makes, at
its top, inside a function or under ``if TYPE_CHECKING`` (a function-level import still ties
the two modules together: it only hides the circle from the interpreter until the call; a
type-checking one, from the interpreter but not from mypy or a reader). An edge runs from a module to
each module of ``server.rules`` it names: ``from .x import y`` names ``x`` and, when ``x`` is
a package and ``y`` one of its modules, ``x.y``; a package's ``__init__`` is a module like
any other.

Implementation test: no rule section."""

from __future__ import annotations

import ast
from pathlib import Path

RULES_DIR = Path(__file__).resolve().parents[2] / "server" / "rules"
PACKAGE = "server.rules"


def _module_name(path: Path, rules_dir: Path, package: str) -> str:
    parts = path.relative_to(rules_dir).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([package, *parts])


def _absolute(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute name of ``from <level dots><target> import ...`` written in ``module``."""
    if level == 0:
        return target or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def import_graph(rules_dir: Path = RULES_DIR, package: str = PACKAGE) -> dict[str, set[str]]:
    """Each module of ``package`` (its sources in ``rules_dir``) and the modules of
    ``package`` it imports."""
    paths = {_module_name(path, rules_dir, package): path
             for path in sorted(rules_dir.rglob("*.py"))}
    graph: dict[str, set[str]] = {name: set() for name in paths}
    for module, path in paths.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            named: list[str] = []
            if isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(module, is_package, node.level, node.module)
                named = [source] + [f"{source}.{alias.name}" for alias in node.names]
            for name in named:
                # ``import server.rules.x.y`` also imports its packages; the edge that
                # matters is to the deepest module named.
                while name and name not in paths and "." in name:
                    name = name.rsplit(".", 1)[0]
                if name in paths and name != module:
                    graph[module].add(name)
    return graph


def _packages_of(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(2, len(parts))}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as the list of modules along it (first == last), or None.

    An edge into a package's ``__init__`` from a module inside that package is left out:
    importing ``server.rules.x.y`` runs ``server.rules.x`` first whatever ``y`` imports, so
    that edge adds no circle of its own."""
    white, grey, black = 0, 1, 2
    colour = dict.fromkeys(graph, white)
    stack: list[str] = []

    def visit(module: str) -> list[str] | None:
        colour[module] = grey
        stack.append(module)
        for target in sorted(graph[module]):
            if target in _packages_of(module):
                continue
            if colour[target] == grey:
                return [*stack[stack.index(target):], target]
            if colour[target] == white:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        colour[module] = black
        return None

    for module in sorted(graph):
        if colour[module] == white:
            found = visit(module)
            if found:
                return found
    return None


def test_the_rules_core_has_no_import_circle() -> None:
    graph = import_graph()
    assert len(graph) > 50  # the walk found the package
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_walk_finds_circles_closed_inside_a_function_or_for_the_type_checker(
        tmp_path: Path) -> None:
    """The checker itself, on a small package: ``a`` imports ``sub.b`` at its top; ``sub.b``
    imports ``a`` inside a function, ``sub.c`` only for the type checker."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "sub" / "__init__.py").write_text("")
    (tmp_path / "a.py").write_text("from .sub import b\nfrom . import sub\n")
    (tmp_path / "sub" / "b.py").write_text("def f():\n    from ..a import f\n")
    (tmp_path / "sub" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.sub.b\n")
    graph = import_graph(tmp_path, "pkg")
    assert graph == {"pkg": set(), "pkg.a": {"pkg", "pkg.sub", "pkg.sub.b"}, "pkg.sub": set(),
                     "pkg.sub.b": {"pkg.a"}, "pkg.sub.c": {"pkg.sub.b"}}
    assert find_cycle(graph) == ["pkg.a", "pkg.sub.b", "pkg.a"]
    (tmp_path / "sub" / "b.py").write_text("def f():\n    return 1\n")
    assert find_cycle(import_graph(tmp_path, "pkg")) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_relative_imports_resolve_from_modules_and_packages() -> None:
    assert _absolute("server.rules.combat.attacks", False, 2, "orders.aro") == (
        "server.rules.orders.aro")
    assert _absolute("server.rules.combat", True, 1, "attacks") == "server.rules.combat.attacks"
    assert _absolute("server.rules.engine", False, 1, None) == "server.rules"
