"""User settings: defaults, `[tool.graphweld]` in pyproject.toml, and command-line overrides."""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


class SettingsError(Exception):
    """A configuration problem the user must fix (bad key, bad value, unreadable file)."""


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know besides the files themselves.

    `select` holds rule ids; an empty `select` means every rule.
    """

    select: frozenset[str] = frozenset()
    ignore: frozenset[str] = frozenset()
    unsafe_fixes: bool = False
    assume_compiled: bool = False
    # Qualified names of calls that break graphs besides the built-in list.
    extra_breakers: tuple[str, ...] = ()
    # Qualified names of I/O calls (they break graphs and have side effects).
    io_functions: tuple[str, ...] = ()
    # I/O calls that isolate-io may guard (skip under compilation) without --unsafe-fixes.
    guard_functions: tuple[str, ...] = ()
    # Context managers Dynamo can resume in, besides the built-in list.
    resumable_context_managers: tuple[str, ...] = ()
    max_unroll: int = 16
    # How long one round of a verified fix may search before it keeps what it verified so far.
    round_seconds: int = 900
    # Under a run: also write a rewrite whose replaced code the entry's runs never reached.
    unexercised_fixes: bool = False
    # gitignore-style patterns excluded from directory walks.
    exclude: tuple[str, ...] = ()
    # Where the settings came from, for messages.
    config_file: str | None = field(default=None, compare=False)

    def replace(self, **changes: object) -> "Settings":
        return dataclasses.replace(self, **changes)


# TOML key -> (Settings field, expected kind)
_KEYS: dict[str, tuple[str, str]] = {
    "select": ("select", "ids"),
    "ignore": ("ignore", "ids"),
    "unsafe-fixes": ("unsafe_fixes", "bool"),
    "assume-compiled": ("assume_compiled", "bool"),
    "extra-breakers": ("extra_breakers", "names"),
    "io-functions": ("io_functions", "names"),
    "guard-functions": ("guard_functions", "names"),
    "resumable-context-managers": ("resumable_context_managers", "names"),
    "max-unroll": ("max_unroll", "int"),
    "round-seconds": ("round_seconds", "int"),
    "unexercised-fixes": ("unexercised_fixes", "bool"),
    "exclude": ("exclude", "names"),
}


def find_config_file(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start` that has a [tool.graphweld] table."""
    start = start.resolve()
    directory = start if start.is_dir() else start.parent
    for candidate_dir in (directory, *directory.parents):
        candidate = candidate_dir / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue
            if "graphweld" in data.get("tool", {}):
                return candidate
    return None


def load_settings(config_file: Path | None) -> Settings:
    """Settings from `config_file`'s [tool.graphweld] table (defaults when None)."""
    if config_file is None:
        return Settings()
    try:
        data = tomllib.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{config_file}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{config_file}: invalid TOML: {exc}") from None
    table = data.get("tool", {}).get("graphweld", {})
    if not isinstance(table, dict):
        raise SettingsError(f"{config_file}: [tool.graphweld] must be a table")
    values: dict[str, object] = {"config_file": str(config_file)}
    for key, raw in table.items():
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise SettingsError(f"{config_file}: unknown key '{key}' in [tool.graphweld] (known: {known})")
        name, kind = _KEYS[key]
        values[name] = _convert(config_file, key, raw, kind)
    return Settings(**values)  # type: ignore[arg-type]


def _convert(config_file: Path, key: str, raw: object, kind: str) -> object:
    where = f"{config_file}: [tool.graphweld] {key}"
    if kind == "bool":
        if not isinstance(raw, bool):
            raise SettingsError(f"{where} must be true or false")
        return raw
    if kind == "int":
        if not isinstance(raw, int) or isinstance(raw, bool) or raw < 1:
            raise SettingsError(f"{where} must be a positive integer")
        return raw
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        raise SettingsError(f"{where} must be a list of strings")
    return frozenset(raw) if kind == "ids" else tuple(raw)
