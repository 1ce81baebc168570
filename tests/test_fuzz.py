"""Property-based tests: every rule, on arbitrary valid Python, never crashes and always emits code
that parses, compiles and does not change on a second run.

Two sources of programs: hypothesmith's programs generated from Python's grammar, with a graph
break, a print and a DLPack round trip injected at the top of every block (so every rule has sites
everywhere), and programs composed from the constructs the rules rewrite (with, for, try, if,
helpers, I/O) nested at random. CI runs a fixed set of examples (derandomized); set
GRAPHWELD_FUZZ_EXAMPLES=5000 for a deeper, random run.
"""

from __future__ import annotations

import ast
import os
import warnings

import hypothesmith
import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphweld.engine import fix_text, parse
from graphweld.settings import Settings
from graphweld.source import SourceError

DEEP = int(os.environ.get("GRAPHWELD_FUZZ_EXAMPLES", "0"))
FUZZ = settings(
    max_examples=DEEP or 60,
    derandomize=not DEEP,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
ALL_RULES = Settings(assume_compiled=True, unsafe_fixes=True)
SAFE_ONLY = Settings(assume_compiled=True)

BREAKERS = [
    "torch._dynamo.graph_break()",
    'print("checkpoint")',
    "logger.warning_once(\"deprecated\")",
    "y = torch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(x))",
    "frame = inspect.currentframe()",
]


class _InjectBreakers(cst.CSTTransformer):
    """Puts a breaking statement first in every indented block."""

    def __init__(self, statements: list[str]) -> None:
        super().__init__()
        self.statements = [cst.parse_statement(statement + "\n") for statement in statements]
        self.count = 0

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        statement = self.statements[self.count % len(self.statements)]
        self.count += 1
        return updated_node.with_changes(body=(statement, *updated_node.body))


def check_rewrite(text: str, rule_settings: Settings) -> None:
    """The property: fixing either fails cleanly on input libcst cannot parse, or gives code that
    parses (and compiles when the input did), and a second run changes nothing."""
    try:
        outcome = fix_text(text, "fuzz.py", rule_settings)
    except SourceError as exc:
        assert "internal error" not in str(exc), str(exc)
        return
    parse(outcome.text)
    if _compiles(text):
        assert _compiles(outcome.text), outcome.text
    second = fix_text(outcome.text, "fuzz.py", rule_settings)
    assert second.text == outcome.text
    assert not second.applied


def _compiles(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "fuzz.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _with_breakers(source: str, offset: int) -> str | None:
    try:
        module = cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError):
        return None
    rotated = BREAKERS[offset % len(BREAKERS) :] + BREAKERS[: offset % len(BREAKERS)]
    injected = module.visit(_InjectBreakers(rotated))
    return "import inspect\nimport torch\n" + injected.code


@FUZZ
@given(source=hypothesmith.from_grammar(), offset=st.integers(0, 4))
def test_grammar_programs_with_breakers_everywhere(source: str, offset: int):
    text = _with_breakers(source, offset)
    if text is not None:
        check_rewrite(text, ALL_RULES)


@FUZZ
@given(source=hypothesmith.from_node(), offset=st.integers(0, 4))
def test_node_programs_with_breakers_everywhere(source: str, offset: int):
    text = _with_breakers(source, offset)
    if text is not None:
        check_rewrite(text, ALL_RULES)


# -- programs made of what the rules rewrite --------------------------------------------------------

NAMES = st.sampled_from(["x", "y", "h", "total", "i", "scale"])
SIMPLE = st.one_of(
    NAMES.map(lambda name: f"{name} = x + 1"),
    NAMES.map(lambda name: f"{name} = {name} * 2" if name != "i" else "i = 0"),
    st.sampled_from(BREAKERS + ["return x", "continue", "break", "pass", "h = helper(x)", "del y", "y += 1", "raise ValueError(x)"]),
)


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


def _compound(children: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[str]]:
    headers = st.sampled_from(
        [
            "with Ctx():",
            "with torch.no_grad():",
            "with Ctx() as c, torch.no_grad():",
            "for i in range(3):",
            "for scale in (0.5, 2.0):",
            "for i in range(n):",
            "while x.sum() > 0:",
            "if x.sum() > 0:",
            "try:",
        ]
    )

    def build(header: str, body: list[str], other: list[str], kind: int) -> list[str]:
        lines = [header, *_indent(body or ["pass"])]
        if header == "try:":
            handler = ["except ValueError:", *_indent(other or ["pass"])]
            tail = [["finally:", *_indent(["pass"])], ["else:", *_indent(["pass"])], []][kind % 3]
            return [*lines, *handler, *tail]
        if header.startswith(("for", "while", "if")) and kind % 2:
            return [*lines, "else:", *_indent(other or ["pass"])]
        return lines

    return st.builds(build, headers, children, children, st.integers(0, 5))


BLOCK = st.recursive(
    st.lists(SIMPLE.map(lambda line: [line]), min_size=1, max_size=4).map(lambda parts: [l for p in parts for l in p]),
    lambda children: st.lists(st.one_of(SIMPLE.map(lambda line: [line]), _compound(children)), min_size=1, max_size=4).map(
        lambda parts: [line for part in parts for line in part]
    ),
    max_leaves=12,
)

PRELUDE = '''import inspect
import logging

import torch

logger = logging.getLogger(__name__)


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def helper(x):
    y = x.sin()
    torch._dynamo.graph_break()
    return y

'''


@FUZZ
@given(body=BLOCK, decorate=st.booleans(), method=st.booleans())
def test_composed_compiled_functions(body: list[str], decorate: bool, method: bool):
    function = ["@torch.compile" if decorate else "", "def f(x, n=2):", *_indent(["y = x", "h = x", "total = x", *body, "return x"])]
    if method:
        source = PRELUDE + "\nclass Model(torch.nn.Module):\n" + "\n".join(_indent([line for line in function if line])) + "\n"
    else:
        source = PRELUDE + "\n" + "\n".join(line for line in function if line) + "\n"
    try:
        ast.parse(source)
    except SyntaxError:
        return  # e.g. `continue` outside a loop: not a valid program to start from
    for rule_settings in (ALL_RULES, SAFE_ONLY):
        check_rewrite(source, rule_settings)


@pytest.mark.parametrize("source", ["", "\n", "# only a comment", "x = 1", "import torch\n@torch.compile\ndef f(x): return x"])
def test_trivial_programs(source: str):
    check_rewrite(source, ALL_RULES)
