"""The interface every rule in `graphweld.codemods` implements.

A rule is a libcst visitor in the style of Fixit: its `visit_<Node>` methods look at the tree and
call `propose()` with a replacement for a statement, or `report()` for a site it finds but cannot
fix safely. Rules never print, prompt or touch files; the engine turns proposals into changes.
Proposals are computed from the original tree, one independent change each, so that a front-end
can offer them one at a time; the engine applies non-overlapping ones together and re-runs the
rules on the result until nothing is left to do.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Callable, ClassVar, Sequence

import libcst as cst

from graphweld import cst_fast
from graphweld.analysis.blocks import (
    binds_torch, importing_torch, names_torch, torch_import_edit, torch_imported_before, torch_is_local,
)
from graphweld.analysis.breakers import BreakerCatalog
from graphweld.positions import node_spans
from graphweld.run_evidence import NO_EVIDENCE, RunEvidence
from graphweld.analysis.regions import CompiledRegions
from graphweld.analysis.split import FunctionSplitter
from graphweld.settings import Settings
from graphweld.analysis.tensors import FunctionValues
from graphweld.walk import calls_outside_definitions, iter_nodes


class Safety(str, enum.Enum):
    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass
class Finding:
    """One site a rule found. `target`/`replacement` are None for a report without a fix."""

    rule: str
    anchor: cst.CSTNode
    message: str
    target: cst.CSTNode | None = None
    replacement: Sequence[cst.BaseStatement] | None = None
    safety: Safety = Safety.SAFE
    # Further statements replaced by the same change (e.g. a helper added at module level).
    extra: tuple[tuple[cst.CSTNode, Sequence[cst.BaseStatement]], ...] = ()
    # Statements elsewhere whose breaks the change removes (a loop in a callee, when the change
    # is at the call): a break reported there is this change's to fix.
    resolves: tuple[cst.CSTNode, ...] = ()
    # Which of the rule's ways of fixing the site this is, for a rule that has several (isolate-io:
    # "split", "defer", "guard"); "" for a rule with one.
    form: str = ""
    # The change leaves the function holding its anchor uncompiled (a split makes it an eager
    # driver of compiled pieces): what a run saw there no longer makes it a region.
    ends_region: bool = False

    @property
    def is_fix(self) -> bool:
        return self.target is not None


class RuleContext:
    """What rules may ask about the module: regions, breakers, settings, where the visit is."""

    def __init__(
        self,
        module: cst.Module,
        settings: Settings,
        regions: CompiledRegions,
        path: str = "",
        *,
        text: str | None = None,
        evidence: RunEvidence = NO_EVIDENCE,
    ) -> None:
        self.module = module
        # The file's path as the user gave it (only for names derived from it, never opened).
        self.path = path
        self.text = text
        # What a run saw in the file: Dynamo's evidence of what breaks where (see RunEvidence).
        self.evidence = evidence
        self.settings = settings
        self.regions = regions
        self.breakers = BreakerCatalog(settings, regions.imports)
        self.function_stack: list[cst.FunctionDef] = []
        self._function_values: dict[int, FunctionValues] = {}
        self._seen_by_run: dict[int, bool] = {}
        # `if` nodes that are the `elif` of another (set by the walk as it enters their `if`).
        self.elif_nodes: set[int] = set()
        # Whether a change (rule, form, line, column of its anchor in this text) was ruled out by
        # the caller: `fix --entry` trying a site's next fix after one did not verify.
        self.excluded: Callable[[str, str, int, int], bool] | None = None
        self._splitter: FunctionSplitter | None = None
        self._calls: dict[int, list[cst.Call]] = {}

    def calls_in(self, statement: cst.BaseStatement, part: cst.CSTNode) -> list[cst.Call]:
        """The calls in `part` of `statement` (the statement itself, or its header: one part per
        statement), outside the functions, lambdas and classes it defines, in walk order: walked
        once for all the rules that rewrite calls."""
        found = self._calls.get(id(statement))
        if found is None:
            found = self._calls[id(statement)] = calls_outside_definitions(part)
        return found

    def allows(self, rule: str, form: str, anchor: cst.CSTNode) -> bool:
        """Whether the rule may propose `form` at `anchor`; a rule with several forms falls through
        to its next one when one is ruled out."""
        if self.excluded is None:
            return True
        span = node_spans(self.module, [anchor], self.text).get(id(anchor))
        return span is None or not self.excluded(rule, form, span.start_line, span.start_column + 1)

    @property
    def splitter(self) -> FunctionSplitter:
        """Splits compiled functions into compiled pieces (made once per module)."""
        if self._splitter is None:
            self._splitter = FunctionSplitter(self.module, self.regions)
        return self._splitter

    def torch_name(self) -> str | None:
        """The name a rewrite writes torch as: the module's own (`th` after `import torch as th`),
        else `torch`, which `Rule.propose` imports where the module lacks it (a module importing
        only `torch.nn as nn`, or no torch at all); None where the module binds `torch` to
        something else."""
        aliases = self.regions.imports.aliases
        local = self.regions.imports.local_name("torch")
        if local is not None:
            return local
        return None if "torch" in aliases else "torch"

    @property
    def current_function(self) -> cst.FunctionDef | None:
        return self.function_stack[-1] if self.function_stack else None

    @property
    def in_compiled_region(self) -> bool:
        function = self.current_function
        return function is not None and self.regions.is_compiled(function)

    def function_values(self, function: cst.FunctionDef) -> FunctionValues:
        """What the function's code shows about its values (computed once, shared by the rules)."""
        values = self._function_values.get(id(function))
        if values is None:
            values = self._function_values[id(function)] = FunctionValues(function, self.regions.imports)
        return values

    def tensor_decision(self, node: cst.If) -> tuple[FunctionValues, str] | None:
        """For an `if` (not an `elif`) in a compiled region whose condition is a tensor, as the code
        shows or a run saw: the function's values and the name the module imports torch as."""
        function = self.current_function
        if function is None or id(node) in self.elif_nodes or not self.in_compiled_region:
            return None
        values = self.function_values(function)
        if not (values.decides_on_tensor(node.test) or self.branches_on_tensor_per_run(node)):
            return None
        torch_name = self.regions.imports.local_name("torch")
        return (values, torch_name) if torch_name is not None else None

    def branches_on_tensor_per_run(self, statement: cst.CSTNode) -> bool:
        """Whether a run saw Dynamo stop on data-dependent branching at the statement's first line
        (placed once per statement: several rules ask about the same `if`)."""
        if not self.evidence.data_dependent_lines:
            return False
        seen = self._seen_by_run.get(id(statement))
        if seen is None:
            span = node_spans(self.module, [statement], self.text).get(id(statement))
            seen = self._seen_by_run[id(statement)] = span is not None and span.start_line in self.evidence.data_dependent_lines
        return seen

    def breaks_per_run(self, statement: cst.CSTNode) -> bool:
        """Whether a run saw a graph break at the statement's first line."""
        return self._starts_on(statement, self.evidence.break_lines)

    def passes_per_run(self, statement: cst.CSTNode) -> bool:
        """Whether a run saw the statement's first line on the stack of a break further in."""
        return self._starts_on(statement, self.evidence.stack_lines)

    def untraceable_per_run(self, statement: cst.CSTNode) -> bool:
        """Whether a run saw Dynamo break at the statement's first line on a call it cannot trace."""
        return self._starts_on(statement, self.evidence.untraceable_lines)

    def calls_disabled_per_run(self, statement: cst.CSTNode) -> bool:
        """Whether a run saw Dynamo break in the statement on a call of a function disabled for it
        (on any of its lines: see `_within`)."""
        return self._within(statement, self.evidence.disabled_call_lines)

    def breaks_within_per_run(self, statement: cst.CSTNode) -> bool:
        """Whether a run saw a graph break in the statement (on any of its lines: a comprehension
        inside a call breaks on its own line)."""
        return self._within(statement, self.evidence.break_lines)

    def _within(self, statement: cst.CSTNode, lines: frozenset[int]) -> bool:
        """Whether one of the lines is any line of a simple statement (Dynamo names the line it
        broke on, inside a statement written over several) or the first line of a compound one
        (its header)."""
        if not lines:
            return False
        if not isinstance(statement, cst.SimpleStatementLine):
            return self._starts_on(statement, lines)
        span = node_spans(self.module, [statement], self.text).get(id(statement))
        return span is not None and any(span.start_line <= line <= span.end_line for line in lines)

    def _starts_on(self, statement: cst.CSTNode, lines: frozenset[int]) -> bool:
        if not lines:
            return False
        span = node_spans(self.module, [statement], self.text).get(id(statement))
        return span is not None and span.start_line in lines

    def code(self, node: cst.CSTNode) -> str:
        """Source text of a node on one line, shortened for messages (without its comment)."""
        if isinstance(node, cst.SimpleStatementLine):
            text = "; ".join(cst_fast.code([small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)], self.module) for small in node.body)
        else:
            text = cst_fast.code([node], self.module)
        text = " ".join(text.split())
        return text if len(text) <= 60 else text[:57] + "..."


class Rule:
    """Base class of rules. Subclasses set the class attributes and define visit_* methods.

    The class docstring is the rule's documentation, in ruff's shape: What it fixes / Why the
    graph breaks / Example / Safety.
    """

    id: ClassVar[str]
    summary: ClassVar[str]
    # The docs' table of rules is generated from these (Markdown): what the rule finds in a
    # compiled region, how it rewrites it, and whether its fix is safe by default.
    finds: ClassVar[str]
    rewrite: ClassVar[str]
    default: ClassVar[str]
    # The PyTorch documentation the fix comes from (linked from editor diagnostics).
    reference: ClassVar[str]
    # Words a text must contain for the rule to apply (the bytes prefilter, and per rule in propose).
    trigger_words: ClassVar[tuple[str, ...]]
    # Whether a site needs a call to a graph-breaking function (the prefilter looks for one);
    # rules about decisions on tensor values look for their trigger words alone.
    needs_breaker_call: ClassVar[bool] = True
    # The first torch (major, minor) whose Dynamo no longer breaks where the rule looks. The rule
    # still rewrites there (the same output on every torch graphweld admits, and the file keeps
    # compiling whole on the older ones), and its message says the installed torch does not need it.
    unneeded_from_torch: ClassVar[tuple[int, int] | None] = None
    # Whether the rule fixes a break from a frame that led to it (its change is at a call on the
    # break's stack, in `RuleContext.stack_lines`, not at the break): it runs on such files even
    # where nothing is known to be compiled.
    fixes_from_callers: ClassVar[bool] = False
    # Whether a compiled run of the rewrite prints other numbers than eager (timings that read 0
    # while compiling): its printed lines are compared with their numbers aside.
    varies_printed_numbers: ClassVar[bool] = False
    # Whether the rule's reports are generic (any branch on a tensor): at a line where another
    # rule reports too, the other says why (LayerDrop's draw), and the explanation shows it.
    generic_reports: ClassVar[bool] = False
    # The one library whose own names the rule keys on, for a rule kept as a last resort (its
    # mechanism has no general rewrite); empty for a rule keyed on a mechanism. The docs list
    # such rules apart.
    library: ClassVar[str] = ""
    # Whether the names in `extra-breakers` count as trigger words too.
    triggered_by_configured_breakers: ClassVar[bool] = False
    # The node types whose visit_* methods the dispatcher calls.
    node_types: ClassVar[tuple[type[cst.CSTNode], ...]]

    def __init__(self, context: RuleContext) -> None:
        self.context = context
        self.findings: list[Finding] = []
        self._functions_looked_at: set[int] = set()

    def compiled_function_once(self) -> cst.FunctionDef | None:
        """The function the visit is in, the first time the rule asks from inside it, when it is a
        compiled region; None otherwise. A rule that starts from a call it looks for (node_types
        `cst.Call`) examines the call's function once, and the scan walks no other function."""
        function = self.context.current_function
        if function is None or id(function) in self._functions_looked_at:
            return None
        self._functions_looked_at.add(id(function))
        return function if self.context.regions.is_compiled(function) else None

    def propose(
        self,
        target: cst.CSTNode,
        replacement: Sequence[cst.BaseStatement],
        *,
        anchor: cst.CSTNode,
        message: str,
        safety: Safety,
        extra: Sequence[tuple[cst.CSTNode, Sequence[cst.BaseStatement]]] = (),
        resolves: Sequence[cst.CSTNode] = (),
        form: str = "",
        ends_region: bool = False,
    ) -> None:
        extra = list(extra)
        written = [*replacement, *(s for _, r in extra for s in r)]
        if names_torch(written):
            function = self.context.current_function
            # Only a change inside the function reads its local `torch` (a decorator on a
            # module-level helper, proposed while visiting its caller, does not).
            if (
                function is not None and target is not function and torch_is_local(function)
                and any(node is target for node in iter_nodes(function))
            ):
                if not torch_imported_before(function, target):
                    # `torch` is a local of the function (it imports torch itself), bound only
                    # later or on some paths (torchquad's `if backend == "torch": import torch`):
                    # reading it here would raise UnboundLocalError, and no module-level import
                    # reaches a local.
                    self.report(anchor, f"{message}; not rewritten: the function imports torch itself, after this point or only on some paths")
                    return
            elif not binds_torch(self.context.module.body) and not binds_torch(written):
                # A rewrite that writes `torch.…` in a module that imports torch only inside a
                # function, or not at all (torchquad, written for several backends), would raise
                # NameError where it runs: the module imports torch first.
                edit = torch_import_edit(self.context.module, avoid=target)
                if edit is not None:
                    extra.append(edit)
                elif replacement and any(statement is target for statement in self.context.module.body):
                    # The change replaces the module's first statement (a helper module that
                    # starts with the decorated definition): the import goes in front of it.
                    replacement = importing_torch(replacement)
                else:
                    self.report(anchor, f"{message}; not rewritten: the module does not import torch, and there is no place to add it")
                    return
        self.findings.append(
            Finding(
                self.id,
                anchor,
                message,
                target,
                tuple(replacement),
                safety,
                tuple((t, tuple(r)) for t, r in extra),
                tuple(resolves),
                form,
                ends_region,
            )
        )

    def allows(self, form: str, anchor: cst.CSTNode) -> bool:
        """Whether this rule may propose `form` at `anchor` (see `RuleContext.allows`)."""
        return self.context.allows(self.id, form, anchor)

    def report(self, anchor: cst.CSTNode, message: str) -> None:
        self.findings.append(Finding(self.id, anchor, message))
