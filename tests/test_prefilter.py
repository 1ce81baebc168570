"""The bytes prefilter decides without importing a rule: it reads the registry (`RULE_MODULES`)
and the rules' source, the trigger words it reads are the rule classes' own, and a run over files
that cannot hold a site imports neither libcst nor a rule."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from graphweld.analysis.breakers import BreakerCatalog
from graphweld.analysis.names import ImportTable
from graphweld.codemods import RULES
from graphweld.prefilter import breaker_words
from graphweld.settings import Settings
from graphweld.trigger_words import rule_triggers


def test_the_trigger_words_read_from_the_rules_source_are_the_rule_classes():
    read = rule_triggers()
    assert read == {rule.id: (rule.trigger_words, rule.needs_breaker_call) for rule in RULES}
    assert list(read) == [rule.id for rule in RULES]  # in registry order


def test_the_breaker_words_are_the_catalogs():
    configured = Settings(io_functions=("mylib.dump_stats",), extra_breakers=("mylib.trace_me",))
    for settings in (Settings(), configured):
        assert breaker_words(settings) == BreakerCatalog(settings, ImportTable()).prefilter_words()


def test_a_clean_file_is_decided_without_libcst_or_any_rule(tmp_path: Path):
    clean = tmp_path / "util.py"
    clean.write_text("import torch\n\n\ndef scale(x):\n    if x.dim() > 1:\n        print(x.shape)\n    return x * 2\n")
    probe = (
        "import sys\n"
        "from graphweld.__main__ import entry\n"
        f"sys.argv = ['graphweld', 'fix', '--check', {str(clean)!r}]\n"
        "try:\n    entry()\nexcept SystemExit as exc:\n    code = exc.code\n"
        "heavy = sorted(m for m in sys.modules if m == 'libcst' or m.startswith('graphweld.codemods.') or m == 'rich')\n"
        "print(code, heavy, file=sys.stderr)\n"
    )
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    last = shown.stderr.strip().splitlines()[-1]
    assert last == "0 []", shown.stderr
    assert "1 file checked: no file can hold a graph-break site" in shown.stderr
