"""graphweld's rules: one module per rule, each a libcst visitor proposing rewrites.

`RULES` is the registry, in the order rules are listed and applied.
"""

from graphweld.codemods.branch_to_cond import BranchToCond
from graphweld.codemods.branch_to_where import BranchToWhere
from graphweld.codemods.branchless_guard import BranchlessGuard
from graphweld.codemods.dlpack_custom_op import DlpackCustomOp
from graphweld.codemods.guard_to_check import GuardToCheck
from graphweld.codemods.hoist_try import HoistTry
from graphweld.codemods.hoist_with import HoistWith
from graphweld.codemods.isolate_io import IsolateIO
from graphweld.codemods.iterate_source_list import IterateSourceList
from graphweld.codemods.nonstrict_helper import NonstrictHelper
from graphweld.codemods.unroll_loop import UnrollLoop

# Registry order is also precedence: when two rules' changes overlap in one round, the earlier
# rule's change wins (deferring a print removes the break, so the loop need not be unrolled; a
# helper traced non-strictly or a round trip in a custom op no longer breaks at all). A decision
# on a tensor taken into the graph keeps the helper traced, rather than traced non-strictly.
RULES = (
    IsolateIO,
    DlpackCustomOp,
    BranchlessGuard,
    BranchToWhere,
    BranchToCond,
    GuardToCheck,
    IterateSourceList,
    NonstrictHelper,
    UnrollLoop,
    HoistWith,
    HoistTry,
)
RULES_BY_ID = {rule.id: rule for rule in RULES}

__all__ = [
    "RULES",
    "RULES_BY_ID",
    "BranchToCond",
    "BranchToWhere",
    "BranchlessGuard",
    "DlpackCustomOp",
    "GuardToCheck",
    "HoistTry",
    "HoistWith",
    "IsolateIO",
    "IterateSourceList",
    "NonstrictHelper",
    "UnrollLoop",
]
