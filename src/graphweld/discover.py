"""Finding the Python files under the paths a user gives.

Directories are walked without following symlinks (no loops), skipping version-control and
virtual-environment folders, build outputs, anything a `.gitignore` on the way ignores, and the
`exclude` patterns of the settings. A path given explicitly is always processed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

# As ruff's defaults: folders that never hold a project's own sources.
EXCLUDED_DIRECTORIES = frozenset(
    {
        ".bzr",
        ".direnv",
        ".eggs",
        ".git",
        ".hg",
        ".ipynb_checkpoints",
        ".mypy_cache",
        ".nox",
        ".pants.d",
        ".pytype",
        ".ruff_cache",
        ".svn",
        ".tox",
        ".venv",
        "__pycache__",
        "__pypackages__",
        "_build",
        "buck-out",
        "build",
        "dist",
        "node_modules",
        "venv",
    }
)


# Python files, and Jupyter notebooks (their code cells are analysed as one module).
SOURCE_SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class _Pattern:
    regex: re.Pattern[str]
    negated: bool
    directory_only: bool


def _glob_to_regex(glob: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(glob):
        char = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("/**", i) and i + 3 == len(glob):
            out.append("/.*")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = glob.find("]", i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = glob[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end
        elif char == "\\" and i + 1 < len(glob):
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def parse_gitignore(lines: Iterable[str]) -> list[_Pattern]:
    """gitignore patterns: comments, `!` negation, trailing `/` for directories, anchoring by `/`."""
    patterns: list[_Pattern] = []
    for raw in lines:
        line = raw.rstrip("\n").rstrip("\r")
        if not line.endswith("\\ "):
            line = line.rstrip(" ")
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        elif line.startswith("\\"):
            line = line[1:]
        directory_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        body = _glob_to_regex(line)
        regex = re.compile(("" if anchored else "(?:.*/)?") + body + r"\Z", re.DOTALL)
        patterns.append(_Pattern(regex, negated, directory_only))
    return patterns


class _IgnoreRules:
    """Patterns from one .gitignore (or the settings), relative to `base`."""

    def __init__(self, base: Path, patterns: list[_Pattern]) -> None:
        self.base = base
        self.patterns = patterns

    def verdict(self, path: Path, is_dir: bool) -> bool | None:
        """True ignored, False re-included, None no opinion; the last matching pattern wins."""
        try:
            relative = path.relative_to(self.base).as_posix()
        except ValueError:
            return None
        result = None
        for pattern in self.patterns:
            if pattern.directory_only and not is_dir:
                continue
            if pattern.regex.match(relative):
                result = not pattern.negated
        return result


def _is_ignored(path: Path, is_dir: bool, rules: Sequence[_IgnoreRules]) -> bool:
    ignored = False
    for rule in rules:
        verdict = rule.verdict(path, is_dir)
        if verdict is not None:
            ignored = verdict
    return ignored


def _load_gitignore(directory: Path) -> _IgnoreRules | None:
    candidate = directory / ".gitignore"
    try:
        with open(candidate, encoding="utf-8", errors="replace") as handle:
            patterns = parse_gitignore(handle)
    except OSError:
        return None
    return _IgnoreRules(directory, patterns) if patterns else None


def _ancestor_gitignores(directory: Path) -> list[_IgnoreRules]:
    """.gitignore files above `directory`, up to the root of its git work tree (if any)."""
    found: list[_IgnoreRules] = []
    for parent in directory.parents:
        rules = _load_gitignore(parent)
        if rules is not None:
            found.append(rules)
        if (parent / ".git").exists():
            return list(reversed(found))
    return []  # not in a git work tree: gitignores above it do not apply


def _is_virtualenv(directory: Path) -> bool:
    return (directory / "pyvenv.cfg").exists()


def discover(paths: Sequence[str], exclude: Sequence[str] = ()) -> tuple[list[str], list[tuple[str, str]]]:
    """Python files and notebooks under `paths` (sorted, unique) and (path, message) for paths that fail."""
    files: list[str] = []
    errors: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(path: str) -> None:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            files.append(path)

    for given in paths:
        root = Path(given)
        try:
            is_dir = root.is_dir()
            exists = root.exists() or root.is_symlink()
        except OSError as exc:
            errors.append((given, f"cannot access: {exc.strerror or exc}"))
            continue
        if not exists:
            errors.append((given, "no such file or directory"))
            continue
        if not is_dir:
            add(given)
            continue
        before = len(files)
        settings_rules = [_IgnoreRules(root.resolve(), parse_gitignore(exclude))] if exclude else []
        for path in _walk(root, settings_rules):
            add(path)
        if len(files) == before:
            errors.append((given, "no Python files found"))
    return files, errors


def _walk(root: Path, base_rules: list[_IgnoreRules]) -> Iterable[str]:
    # Patterns match absolute paths: gitignores above the root and settings share one frame.
    resolved_root = root.resolve()
    start_rules = base_rules + _ancestor_gitignores(resolved_root)
    rules_by_dir: dict[str, list[_IgnoreRules]] = {}
    found: list[str] = []
    for directory, dirnames, filenames in os.walk(root, followlinks=False):
        absolute = resolved_root / Path(directory).relative_to(root)
        inherited = rules_by_dir.get(directory, start_rules)
        own = _load_gitignore(absolute)
        rules = inherited + [own] if own is not None else inherited
        kept = []
        for name in sorted(dirnames):
            child = absolute / name
            if name in EXCLUDED_DIRECTORIES or name.endswith(".egg-info") or _is_virtualenv(child):
                continue
            if _is_ignored(child, True, rules):
                continue
            kept.append(name)
            rules_by_dir[os.path.join(directory, name)] = rules
        dirnames[:] = kept
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES) and not _is_ignored(absolute / name, False, rules):
                found.append(os.path.join(directory, name))
    return sorted(found)
