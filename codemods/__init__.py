"""graphweld's rules: one module per rule, each a libcst visitor proposing rewrites.

`RULES` is the registry, in the order rules are listed and applied.
"""

from graphweld.codemods.arange_loop import ArangeLoop
from graphweld.codemods.block_diagonal_attention import BlockDiagonalAttention
from graphweld.codemods.branch_to_cond import BranchToCond
from graphweld.codemods.branch_to_where import BranchToWhere
from graphweld.codemods.branchless_guard import BranchlessGuard
from graphweld.codemods.constant_requires_grad import ConstantRequiresGrad
from graphweld.codemods.buffer_as_number import BufferAsNumber
from graphweld.codemods.capture_hooks_at_init import CaptureHooksAtInit
from graphweld.codemods.dlpack_custom_op import DlpackCustomOp
from graphweld.codemods.eager_helper import EagerHelper
from graphweld.codemods.eager_module_setup import EagerModuleSetup
from graphweld.codemods.eager_only_default import EagerOnlyDefault
from graphweld.codemods.equality_shortcut import EqualityShortcut
from graphweld.codemods.guard_to_check import GuardToCheck
from graphweld.codemods.hoist_try import HoistTry
from graphweld.codemods.hoist_with import HoistWith
from graphweld.codemods.isolate_io import IsolateIO
from graphweld.codemods.layerdrop_guard import LayerdropGuard
from graphweld.codemods.local_buffer_cast import LocalBufferCast
from graphweld.codemods.loss_ignore_index import LossIgnoreIndex
from graphweld.codemods.masked_accumulate import MaskedAccumulate
from graphweld.codemods.memo_bypass import MemoBypass
from graphweld.codemods.requires_grad_eager import RequiresGradEager
from graphweld.codemods.moe_dense_dispatch import MoeDenseDispatch
from graphweld.codemods.iterate_source_list import IterateSourceList
from graphweld.codemods.nonstrict_helper import NonstrictHelper
from graphweld.codemods.numpy_on_numbers import NumpyOnNumbers
from graphweld.codemods.one_hot_fixed_classes import OneHotFixedClasses
from graphweld.codemods.profiling_guard import ProfilingGuard
from graphweld.codemods.scalar_tensor_index import ScalarTensorIndex
from graphweld.codemods.sort_items_by_key import SortItemsByKey
from graphweld.codemods.split_train_step import SplitTrainStep
from graphweld.codemods.unroll_loop import UnrollLoop
from graphweld.codemods.while_to_while_loop import WhileToWhileLoop

# Registry order is also precedence: when two rules' changes overlap in one round, the earlier
# rule's change wins (a training step split for its backward also cuts its I/O; a clock read in a
# print is made compile-safe before the print is deferred; deferring a
# print removes the break, so the loop need not be unrolled; a
# helper traced non-strictly or a round trip in a custom op no longer breaks at all). A decision
# on a tensor taken into the graph keeps the helper traced, rather than traced non-strictly.
# Running a helper eagerly (eager-helper) gives up compiling it, so every other fix comes first.
RULES = (
    SplitTrainStep,
    ProfilingGuard,
    IsolateIO,
    DlpackCustomOp,
    BranchlessGuard,
    LayerdropGuard,
    MoeDenseDispatch,
    OneHotFixedClasses,
    LossIgnoreIndex,
    MaskedAccumulate,
    BlockDiagonalAttention,
    LocalBufferCast,
    BufferAsNumber,
    ScalarTensorIndex,
    ArangeLoop,
    NumpyOnNumbers,
    MemoBypass,
    EqualityShortcut,
    RequiresGradEager,
    ConstantRequiresGrad,
    EagerOnlyDefault,
    SortItemsByKey,
    BranchToWhere,
    BranchToCond,
    WhileToWhileLoop,
    GuardToCheck,
    IterateSourceList,
    EagerModuleSetup,
    CaptureHooksAtInit,
    NonstrictHelper,
    UnrollLoop,
    HoistWith,
    HoistTry,
    EagerHelper,
)
RULES_BY_ID = {rule.id: rule for rule in RULES}

__all__ = [
    "RULES",
    "RULES_BY_ID",
    "ArangeLoop",
    "BlockDiagonalAttention",
    "BranchToCond",
    "BranchToWhere",
    "BranchlessGuard",
    "BufferAsNumber",
    "CaptureHooksAtInit",
    "ConstantRequiresGrad",
    "DlpackCustomOp",
    "EagerHelper",
    "EagerModuleSetup",
    "EagerOnlyDefault",
    "GuardToCheck",
    "HoistTry",
    "HoistWith",
    "IsolateIO",
    "LayerdropGuard",
    "LocalBufferCast",
    "LossIgnoreIndex",
    "MaskedAccumulate",
    "IterateSourceList",
    "MoeDenseDispatch",
    "NonstrictHelper",
    "NumpyOnNumbers",
    "OneHotFixedClasses",
    "ProfilingGuard",
    "ScalarTensorIndex",
    "SortItemsByKey",
    "SplitTrainStep",
    "UnrollLoop",
    "WhileToWhileLoop",
]
