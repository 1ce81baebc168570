"""The bytes prefilter decides without importing a rule: its copy of the rules' trigger words is
the rules' own, and a run over files that cannot hold a site imports neither libcst nor a rule."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from graphweld.analysis.breakers import BreakerCatalog
from graphweld.analysis.names import ImportTable
from graphweld.codemods import RULES
from graphweld.prefilter import RULE_TRIGGERS, breaker_words
from graphweld.settings import Settings


def test_the_copied_trigger_words_are_the_rules():
    assert RULE_TRIGGERS == {rule.id: (rule.trigger_words, rule.needs_breaker_call) for rule in RULES}


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
        "heavy = sorted(m for m in sys.modules if m == 'libcst' or m.startswith('graphweld.codemods') or m == 'rich')\n"
        "print(code, heavy, file=sys.stderr)\n"
    )
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    last = shown.stderr.strip().splitlines()[-1]
    assert last == "0 []", shown.stderr
    assert "1 file checked: no file can hold a graph-break site" in shown.stderr
