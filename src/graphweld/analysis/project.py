"""Compiled regions across modules: `torch.compile(Net())` or `model.compile()` in `train.py`
makes `Net.forward` a region of `model.py`, where `Net` is defined.

One index per run, over the files the run was given: only files whose bytes hold a compile call
are read, with CPython's `ast` (a few milliseconds a file, beside libcst's parse of the files that
may hold a site, which stays one per file). For each compile call whose target is a class or
function imported from another of the given files, the index records its qualified name there:
`Net.forward` for a class (the module's forward), `step` for a function.
"""

from __future__ import annotations

import ast
import os
import re
import warnings
from dataclasses import dataclass, field
from typing import Iterable

from graphweld.source import SourceError, read_bytes

# A compile call a target can be resolved from: `torch.compile(...)`, a module's `.compile()`, or
# `compile` imported from torch (`re.compile(pattern)` is not one).
_MENTIONS_COMPILE = re.compile(rb"\btorch\.compile\s*\(|\.compile\s*\(\s*\)|\bfrom\s+torch\s+import\b[^\n]*\bcompile\b")
# Methods of nn.Module that return the module: `Net().to(device).eval()` is the Net.
_MODULE_RETURNING = frozenset({"to", "eval", "train", "cuda", "cpu", "half", "float", "double", "bfloat16", "requires_grad_"})


@dataclass
class ProjectIndex:
    """File (real path) -> qualified names of its functions that other files compile."""

    compiled_elsewhere: dict[str, set[str]] = field(default_factory=dict)
    # (file, qualified name) -> where it is compiled: "train.py:5" (the first such call).
    compiled_at: dict[tuple[str, str], str] = field(default_factory=dict)

    def names_for(self, path: str) -> frozenset[str]:
        return frozenset(self.compiled_elsewhere.get(os.path.realpath(path), ()))

    def reasons_for(self, path: str) -> dict[str, str]:
        """The file's functions other files compile, each with where: "torch.compile in train.py:5"."""
        real = os.path.realpath(path)
        return {name: f"compiled in {self.compiled_at[(real, name)]}" for name in sorted(self.names_for(path))}

    @classmethod
    def build(cls, files: Iterable[str], read=None) -> "ProjectIndex":  # type: ignore[no-untyped-def]
        """The index of `files` (paths as discovered); `read(path) -> bytes` for tests."""
        files = [os.path.realpath(path) for path in files if path.endswith(".py")]
        modules = _ModuleFiles(files)
        index = cls()
        for path in files:
            try:
                data = (read or read_bytes)(path)
            except (OSError, SourceError):
                continue  # a device, a huge file, unreadable: the run reports the file itself
            if b"compile" not in data or _MENTIONS_COMPILE.search(data) is None:
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tree = ast.parse(data, filename=path)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue  # the run reports the file itself
            for target_file, qualname, line in _compiled_imports(tree, path, modules):
                if target_file != path:
                    index.compiled_elsewhere.setdefault(target_file, set()).add(qualname)
                    index.compiled_at.setdefault((target_file, qualname), f"{os.path.relpath(path)}:{line}")
        return index


class _ModuleFiles:
    """Which file a module name imported somewhere names, among the run's files."""

    def __init__(self, files: list[str]) -> None:
        self.files = set(files)
        self.by_name: dict[str, set[str]] = {}
        for path in files:
            parts = path[:-3].split(os.sep)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            # Every suffix of the path is a name the file may be imported by (`model`, `pkg.model`).
            for start in range(1, len(parts)):
                self.by_name.setdefault(".".join(parts[start:]), set()).add(path)

    def resolve(self, name: str, importer: str, level: int) -> str | None:
        """The file `from <level dots><name> import ...` in `importer` means, if it is one of the
        run's files (for an absolute name, preferring one beside the importer)."""
        if level:
            base = os.path.dirname(importer)
            for _ in range(level - 1):
                base = os.path.dirname(base)
            stem = os.path.join(base, *name.split(".")) if name else base
            return next((c for c in (stem + ".py", os.path.join(stem, "__init__.py")) if c in self.files), None)
        found = self.by_name.get(name, set())
        here = os.path.dirname(importer)
        near = sorted(found, key=lambda path: (not path.startswith(here + os.sep), len(path), path))
        return near[0] if near else None


def _compiled_imports(tree: ast.Module, path: str, modules: _ModuleFiles) -> list[tuple[str, str, int]]:
    """(file, qualified name, line of the call) for each compile call in the module whose target
    is imported."""
    imported: dict[str, tuple[str, str]] = {}  # local name -> (file, name in it)
    module_aliases: dict[str, str] = {}  # local name -> file of an imported module
    torch_names: set[str] = set()
    compile_names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "torch" or alias.name.startswith("torch."):
                    torch_names.add((alias.asname or alias.name).split(".")[0])
                    continue
                target = modules.resolve(alias.name, path, 0)
                if target is not None:
                    module_aliases[alias.asname or alias.name] = target
        elif isinstance(node, ast.ImportFrom):
            if node.module == "torch" and node.level == 0:
                compile_names.update(a.asname or a.name for a in node.names if a.name == "compile")
                continue
            base = modules.resolve(node.module or "", path, node.level)
            for alias in node.names:
                sub = modules.resolve(f"{node.module}.{alias.name}" if node.module else alias.name, path, node.level)
                if sub is not None and sub != base:
                    module_aliases[alias.asname or alias.name] = sub
                elif base is not None:
                    imported[alias.asname or alias.name] = (base, alias.name)
    if not imported and not module_aliases:
        return []
    instances: dict[str, ast.expr] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    instances[target.id] = node.value

    def is_torch_compile(func: ast.expr) -> bool:
        if isinstance(func, ast.Name):
            return func.id in compile_names
        return isinstance(func, ast.Attribute) and func.attr == "compile" and isinstance(func.value, ast.Name) and func.value.id in torch_names

    def resolve(expression: ast.expr, seen: frozenset[str] = frozenset()) -> tuple[str, str, bool] | None:
        """(file, name, is a created instance) for an expression naming an imported class,
        an instance of one, or an imported function."""
        if isinstance(expression, ast.Call):
            func = expression.func
            while isinstance(func, ast.Attribute) and func.attr in _MODULE_RETURNING and isinstance(func.value, ast.Call):
                func = func.value.func
            named = _imported_name(func, imported, module_aliases)
            return (*named, True) if named is not None else None
        if isinstance(expression, ast.Name):
            if expression.id in instances and expression.id not in seen:
                return resolve(instances[expression.id], seen | {expression.id})
            named = _imported_name(expression, imported, module_aliases)
            return (*named, False) if named is not None else None
        return None

    found: list[tuple[str, str, int]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        target: ast.expr | None = None
        if is_torch_compile(node.func) and node.args:
            target = node.args[0]
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "compile" and not node.args and not (
            isinstance(node.func.value, ast.Name) and node.func.value.id in torch_names
        ):
            target = node.func.value  # nn.Module.compile()
        if target is None:
            continue
        resolved = resolve(target)
        if resolved is None:
            continue
        file, name, instance = resolved
        if name[:1].isupper():
            # A class: the module it creates is compiled through its forward.
            found.append((file, f"{name}.forward", node.lineno))
        elif not instance:
            found.append((file, name, node.lineno))  # a function compiled as it is
    return sorted(found, key=lambda item: item[2])


def _imported_name(func: ast.expr, imported: dict[str, tuple[str, str]], module_aliases: dict[str, str]) -> tuple[str, str] | None:
    if isinstance(func, ast.Name) and func.id in imported:
        return imported[func.id]
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in module_aliases:
        return module_aliases[func.value.id], func.attr
    return None
