"""Each rule's docstring Example is what the rule really does: the rule, run on the Example's
"before" code, writes its "after" code.

An Example shows the code that matters: a fragment of a function body is run inside a function
whose parameters are the names the fragment reads and never binds, with the imports it uses, and
`...` in the "after" code stands for code left out (lines, or part of a line). The "after" code is
compared with what the rule wrote statement by statement, ignoring layout (line breaks, spaces,
a trailing comma, comments). A rule that fixes only what a run saw is given a run that saw a
break on every line; a rule whose fix is unsafe is run with `--unsafe-fixes`.
"""

from __future__ import annotations

import ast
import builtins
import re

import pytest

from graphweld.codemods import RULES
from graphweld.engine import fix_text
from graphweld.frontends.docs import example_pairs
from graphweld.run_evidence import NO_EVIDENCE, RunEvidence
from graphweld.settings import Settings

# The names an Example uses without importing them, as PyTorch code imports them.
IMPORTS = {
    "torch": "import torch",
    "nn": "from torch import nn",
    "F": "import torch.nn.functional as F",
    "np": "import numpy as np",
    "math": "import math",
    "logging": "import logging",
    "warnings": "import warnings",
}

CASES = [
    pytest.param(rule, index, before, after, id=f"{rule.id}-{index}")
    for rule in RULES
    for index, (before, after) in enumerate(example_pairs(rule))
]


def _read_before_bound(tree: ast.AST) -> list[str]:
    """Names the code reads on or before the line that first binds them (or never binds), in the
    order read: what a fragment of a function body is given."""
    first_bound: dict[str, int] = {}
    comprehension_targets = {
        name.id for node in ast.walk(tree) if isinstance(node, ast.comprehension) for name in ast.walk(node.target) if isinstance(name, ast.Name)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            first_bound[node.id] = min(first_bound.get(node.id, node.lineno), node.lineno)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            first_bound.setdefault(node.name, 0)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                first_bound.setdefault(alias.asname or alias.name.split(".")[0], 0)
    loads = sorted(
        (node.lineno, node.col_offset, node.id) for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    )
    read: list[str] = []
    for line, _, name in loads:
        if name in read or name in comprehension_targets or hasattr(builtins, name):
            continue
        if line <= first_bound.get(name, line):
            read.append(name)
    return read


def runnable(before: str) -> str:
    """The Example's code as a module: imports first, a fragment in a function."""
    tree = ast.parse(before)
    free = _read_before_bound(tree)
    code = before
    if not any(isinstance(node, (ast.FunctionDef, ast.ClassDef)) for node in tree.body):
        parameters = ["self", *(name for name in free if name not in IMPORTS and name != "self")]
        body = "".join(f"    {line}\n" if line.strip() else "\n" for line in before.rstrip("\n").split("\n"))
        code = f"def forward({', '.join(parameters)}):\n{body}"
    imports = [IMPORTS[name] for name in IMPORTS if name in free or name == "torch"]
    return "\n".join(imports) + "\n\n\n" + code


def fixed(rule: type, text: str) -> str:
    lines = frozenset(range(1, text.count("\n") + 2))
    saw_breaks = RunEvidence(site_lines=lines, called_lines=lines, data_dependent_lines=lines)
    for unsafe in (False, True):
        settings = Settings(select=frozenset({rule.id}), unsafe_fixes=unsafe, assume_compiled="torch.compile" not in text)
        for evidence in (NO_EVIDENCE, saw_breaks):
            out = fix_text(text, "mymodule.py", settings, evidence).text
            if out != text:
                return out
    return text


def _statements(code: str) -> list[str]:
    return [line.split("  #")[0].strip() for line in code.split("\n") if line.strip() and not line.strip().startswith("#")]


def _squashed(text: str) -> str:
    return re.sub(r",(?=[)\]}])", "", re.sub(r"\s+", "", text))


def shows(after: str, written: str) -> bool:
    """Whether `written` is `after` with what its `...` leaves out, layout aside."""
    pattern = _squashed("".join(line.replace("...", "\0") for line in _statements(after)))
    regex = ".*?".join(re.escape(piece) for piece in pattern.split("\0"))
    return re.search(regex, _squashed("".join(_statements(written))), re.S) is not None


def test_every_rule_has_an_example():
    assert all(example_pairs(rule) for rule in RULES), [rule.id for rule in RULES if not example_pairs(rule)]


@pytest.mark.parametrize("rule, index, before, after", CASES)
def test_the_example_is_what_the_rule_writes(rule, index, before, after):
    text = runnable(before)
    written = fixed(rule, text)
    assert written != text, f"{rule.id}: the rule changes nothing in its Example:\n{text}"
    ast.parse(written)
    assert shows(after, written), f"{rule.id}: the Example's result is not what the rule writes:\n{written}"
