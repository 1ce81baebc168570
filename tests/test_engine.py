"""The core API: independent proposals, edits, prefilter, discovery."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from graphweld.discover import discover, parse_gitignore
from graphweld.edits import TextEdit, apply_edits, minimal_edit, minimal_edits, split_lines
from graphweld.engine import fix_text, non_overlapping, process_source, propose
from graphweld.settings import Settings
from graphweld.splice import Splicer

TWO_SITES = '''import torch


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile
def first(x):
    with Ctx():
        x = x + 1
        torch._dynamo.graph_break()
        return x


@torch.compile
def second(x):
    try:
        x = x * 2
        torch._dynamo.graph_break()
        return x
    except RuntimeError:
        raise
'''


def test_each_proposal_stands_alone_and_together_they_equal_fix():
    proposals = propose(TWO_SITES, "m.py", Settings())
    assert [c.rule for c in proposals.changes] == ["hoist-with", "hoist-try"]
    assert [c.location.line for c in proposals.changes] == [16, 24]
    combined = apply_edits(TWO_SITES, [e for c in proposals.changes for e in c.edits])
    assert combined == fix_text(TWO_SITES, "m.py", Settings()).text
    for change in proposals.changes:
        alone = apply_edits(TWO_SITES, list(change.edits))
        assert alone != TWO_SITES and alone != combined


def test_prefilter_skips_files_that_cannot_hold_a_site():
    not_compiled = b"def f(x):\n    with A():\n        print(x)\n"
    assert not process_source("a.py", not_compiled, Settings()).parsed
    assert process_source("a.py", not_compiled, Settings(assume_compiled=True)).parsed
    no_breaker = b"import torch\n@torch.compile\ndef f(x):\n    with A():\n        return x\n"
    assert not process_source("b.py", no_breaker, Settings()).parsed
    # A breaker's name that is never called (a comment, a string) does not make a site.
    mention = b"import torch\n@torch.compile\ndef f(x):\n    with A():  # print the log\n        return x\n"
    assert not process_source("c.py", mention, Settings()).parsed
    # An alias is called by another name: the import is enough to look.
    aliased = (
        b"import torch\nfrom torch import save as persist\n\n\n@torch.compile\ndef f(x):\n"
        b"    for i in range(2):\n        persist(x, 'f.pt')\n    return x\n"
    )
    result = process_source("d.py", aliased, Settings(unsafe_fixes=True))
    assert result.parsed and [change.rule for change in result.applied]


def test_minimal_edit_and_apply_round_trip():
    old = "a\nb\nc\nd\n"
    new = "a\nB\nB2\nc\nd\n"
    edit = minimal_edit(old, new)
    assert edit == TextEdit(1, 2, "B\nB2\n")
    assert apply_edits(old, [edit]) == new
    assert split_lines("a\r\nb\rc\nd") == ["a\r\n", "b\r", "c\n", "d"]
    assert split_lines("form\x0cfeed\n") == ["form\x0cfeed\n"]
    # Two distant changes become two hunks, not one edit spanning the lines between.
    far = "a\nb\nc\nd\ne\n"
    hunks = minimal_edits(far, "A\nb\nc\nd\nE\n")
    assert hunks == (TextEdit(0, 1, "A\n"), TextEdit(4, 5, "E\n"))
    assert apply_edits(far, hunks) == "A\nb\nc\nd\nE\n"


def test_gitignore_patterns():
    import re

    patterns = parse_gitignore(["# comment", "*.log", "/top.py", "docs/", "!keep.log", "a/**/b.py", r"\#hash.py"])
    def ignored(path: str, is_dir: bool = False) -> bool:
        result = False
        for pattern in patterns:
            if pattern.directory_only and not is_dir:
                continue
            if pattern.regex.match(path):
                result = not pattern.negated
        return result

    assert ignored("x.log") and ignored("deep/er/x.log")
    assert not ignored("keep.log")
    assert ignored("top.py") and not ignored("sub/top.py")
    assert ignored("docs", is_dir=True) and not ignored("docs")
    assert ignored("a/b.py") and ignored("a/x/y/b.py")
    assert ignored("#hash.py")
    assert isinstance(patterns[0].regex, re.Pattern)


def test_discover_is_sorted_unique_and_reports_bad_paths(tmp_path: Path):
    (tmp_path / "b.py").write_text("")
    (tmp_path / "a.py").write_text("")
    (tmp_path / "notes.txt").write_text("")
    files, errors = discover([str(tmp_path), str(tmp_path / "a.py"), str(tmp_path / "missing")])
    assert files == [str(tmp_path / "a.py"), str(tmp_path / "b.py")]
    assert errors == [(str(tmp_path / "missing"), "no such file or directory")]


def test_directory_symlink_loops_are_not_followed(tmp_path: Path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("")
    (tmp_path / "pkg" / "again").symlink_to(tmp_path / "pkg")
    files, errors = discover([str(tmp_path)])
    assert files == [str(tmp_path / "pkg" / "m.py")] and not errors


def test_changes_to_nested_statements_conflict_even_when_hunks_do_not():
    source = (
        "import torch\n\n\n@torch.compile\ndef f(xs):\n    for i in (0, 1):\n        try:\n"
        "            a = i + 1\n            print('loaded', i)\n            return a\n"
        "        except OSError:\n            continue\n"
    )
    changes = propose(source, "m.py", Settings(unsafe_fixes=True)).changes
    loop = next(c for c in changes if c.rule == "unroll-loop")
    split = next(c for c in changes if c.rule == "hoist-try")
    assert loop.overlaps(split)
    fixed = fix_text(source, "m.py", Settings(unsafe_fixes=True, select=frozenset({"unroll-loop", "hoist-try"}))).text
    compile(fixed, "m.py", "exec")  # every `continue` was translated


@pytest.mark.slow
def test_changes_generated_per_statement_equal_whole_module_generation(monkeypatch):
    """Each change's text is generated only for the statements it replaces; it must be what
    generating the whole module gives."""
    from graphweld.edits import apply_edits

    settings = Settings(unsafe_fixes=True, assume_compiled=True)
    cases = sorted((Path(__file__).parent / "golden").glob("*/*.in.py"))
    texts = [case.read_text() for case in cases]
    texts.append(texts[0].replace("\n", "\r\n"))  # other line endings
    texts.append("# header comment\n\n" + texts[1] + "\n\n# footer comment\n")
    spliced = [[apply_edits(text, c.edits) for c in propose(text, "case.py", settings).changes] for text in texts]
    calls = []
    real_statement_edits = Splicer._statement_edits

    def counted(self, target, replacement):  # type: ignore[no-untyped-def]
        found = real_statement_edits(self, target, replacement)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(Splicer, "_statement_edits", counted)
    assert [[apply_edits(text, c.edits) for c in propose(text, "case.py", settings).changes] for text in texts] == spliced
    assert calls and all(calls), "every golden change was generated statement by statement"
    monkeypatch.setattr(Splicer, "_statement_edits", lambda self, target, replacement: None)
    whole = [[apply_edits(text, c.edits) for c in propose(text, "case.py", settings).changes] for text in texts]
    assert spliced == whole
    assert sum(len(changes) for changes in spliced) > 50


def test_changes_adding_helpers_after_one_statement_apply_together():
    """Deferring several logging calls adds a wrapper per callee after the logger's definition;
    the changes do not conflict, so one round applies them all and each wrapper appears once."""
    source = (Path(__file__).parent / "golden" / "isolate-io" / "several_wrappers_after_one_statement.in.py").read_text()
    changes = propose(source, "m.py", Settings()).changes
    assert len(changes) == 5
    assert non_overlapping(changes) and len(non_overlapping(changes)) == 5
    together = apply_edits(source, [edit for change in changes for edit in change.edits])
    assert together == fix_text(source, "m.py", Settings()).text
    assert together.count("def _deferred_logger_info(") == 1 and together.count("def _deferred_print(") == 1
    for change in changes:  # each still stands alone
        compile(apply_edits(source, list(change.edits)), "m.py", "exec")


def test_insertions_of_definitions_combine_and_replacements_stay_put():
    text = "a\nb\nc\n"
    first = TextEdit(1, 1, "def f(): ...\n", definitions=True)
    second = TextEdit(1, 1, "def g(): ...\n", definitions=True)
    replaced = TextEdit(1, 2, "B\n")
    assert apply_edits(text, [first, second, first, replaced]) == "a\ndef f(): ...\ndef g(): ...\nB\nc\n"
    assert apply_edits(text, [replaced, second]) == "a\ndef g(): ...\nB\nc\n"


def test_garbage_collector_is_left_as_the_caller_had_it():
    # The engine pauses the cyclic collector while it analyses a file (speed); a library call
    # must not leave it off, nor turn it on for a caller that had turned it off.
    settings = Settings()
    assert gc.isenabled()
    assert fix_text(TWO_SITES, "two.py", settings).applied
    assert gc.isenabled()
    propose(TWO_SITES, "two.py", settings)
    assert gc.isenabled()
    gc.disable()
    try:
        fix_text(TWO_SITES, "two.py", settings)
        propose(TWO_SITES, "two.py", settings)
        assert not gc.isenabled()
    finally:
        gc.enable()
    broken = process_source("broken.py", b"import torch\n@torch.compile\ndef f(x:\n    print(x)\n", settings)
    assert broken.error and broken.parsed  # it got as far as the parser, which raised
    assert gc.isenabled()


def test_precedence_puts_a_rule_that_keeps_values_traced_before_one_that_runs_code_eagerly():
    # The review and the language server offer, at one place, the change `fix` applies first.
    from graphweld.codemods import RULES
    from graphweld.engine import precedence

    assert precedence("nonstrict-helper") < precedence("eager-helper")
    assert precedence("branch-to-where") < precedence("branch-to-cond")
    assert precedence("no-such-rule") == len(RULES)


def test_adjacent_statements_rewritten_over_several_lines_each_map_to_their_own_replacement():
    from graphweld.edits import LineMap

    old = (
        "def f(x, m, a, b):\n"
        "    x[m == 0] += a\n"
        "    x[m == 1] += b\n"
        "    y = g(\n"
        "        x,\n"
        "    )\n"
        "    return y\n"
    )
    new = (
        "def f(x, m, a, b):\n"
        "    x.index_put_(\n"
        "        (m == 0,), a, accumulate=True,\n"
        "    )\n"
        "    x.index_put_(\n"
        "        (m == 1,), b, accumulate=True,\n"
        "    )\n"
        "    y = g(x)\n"
        "    return y\n"
    )
    lines = LineMap.between(old, new)
    assert [lines.to_new(line) for line in range(1, 8)] == [1, 2, 5, 8, 8, 8, 9]
    assert [lines.to_old(line) for line in range(1, 10)] == [1, 2, 2, 2, 3, 3, 3, 4, 7]


def test_a_name_repeated_inside_a_replacement_does_not_pull_the_next_statement_into_it():
    from graphweld.edits import LineMap

    update = "    e[labels == {label}] += {value}\n"
    call = (
        "    e.index_put_(\n"
        "        (labels == {label},),\n"
        "        torch.as_tensor({value}, dtype=e.dtype, device=e.device),\n"
        "        accumulate=True,\n"
        "    )\n"
    )
    pairs = [("-1", "not_a_point"), ("0", "first"), ("1", "second")]
    old = "def f(e, labels, not_a_point, first, second):\n" + "".join(update.format(label=l, value=v) for l, v in pairs) + "    return e\n"
    new = "def f(e, labels, not_a_point, first, second):\n" + "".join(call.format(label=l, value=v) for l, v in pairs) + "    return e\n"
    lines = LineMap.between(old, new)
    assert [lines.to_new(line) for line in range(1, 6)] == [1, 2, 7, 12, 17]
