"""The house's layout: no import circle in graphweld or its rules, at module level or inside a
function (a lazy import is an edge too), and no module of `src/graphweld` over about 500 lines
without `docs/development.md` saying why it is one idea."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"graphweld": ROOT / "src" / "graphweld", "graphweld.codemods": ROOT / "codemods"}
LONG = 500


def _modules() -> dict[str, Path]:
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = [*package.split("."), *path.relative_to(folder).with_suffix("").parts]
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            wanted = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            # `from package import module` imports the module; `from module import name`, the module.
            wanted = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for target in wanted:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for other in sorted(graph[node]):
            if state.get(other) == 1:
                return path[path.index(other):] + [other]
            if other not in state and (cycle := visit(other)):
                return cycle
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_circle():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or ())


def test_a_long_module_says_in_the_development_guide_why_it_is_one_idea():
    guide = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    folder = PACKAGES["graphweld"]
    long = [path.relative_to(folder).as_posix() for path in folder.rglob("*.py") if len(path.read_text().splitlines()) > LONG]
    unexplained = [name for name in long if f"`{name}`" not in guide]
    assert not unexplained, f"over {LONG} lines with no word in docs/development.md: {unexplained}"
