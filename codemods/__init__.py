"""graphweld's rules: one module per rule, each a libcst visitor proposing rewrites.

`RULE_MODULES` is the registry: each rule's module, in the order rules are listed and applied. A
module holds one rule class, whose attributes state the rule's facts (id, summary, trigger words,
...) once. Adding a rule is its module, its goldens and its line here.

`RULES` (the rule classes) and `RULES_BY_ID` are imported on first use, so that the bytes
prefilter can read the registry without importing libcst or any rule.
"""

from __future__ import annotations

import importlib
from typing import Any

# Registry order is also precedence: when two rules' changes overlap in one round, the earlier
# rule's change wins (a training step split for its backward also cuts its I/O; a clock read in a
# print is made compile-safe before the print is deferred; deferring a
# print removes the break, so the loop need not be unrolled; a
# helper traced non-strictly or a round trip in a custom op no longer breaks at all). A decision
# on a tensor taken into the graph keeps the helper traced, rather than traced non-strictly. A
# pure helper traced non-strictly whole takes its `torch.autograd.grad` calls with it (and its
# checks of their results, such as `grad.grad_fn is None`); the calls alone come next.
# Running a helper eagerly (eager-helper) gives up compiling it, so every other fix comes first.
RULE_MODULES = (
    "split_train_step",
    "profiling_guard",
    "isolate_io",
    "dlpack_custom_op",
    "branchless_guard",
    "layerdrop_guard",
    "moe_dense_dispatch",
    "one_hot_fixed_classes",
    "loss_ignore_index",
    "masked_accumulate",
    "masked_reduction",
    "selected_rows_dense",
    "block_diagonal_attention",
    "local_buffer_cast",
    "buffer_as_number",
    "scalar_tensor_index",
    "item_stays_tensor",
    "arange_loop",
    "numpy_on_numbers",
    "memo_bypass",
    "equality_shortcut",
    "requires_grad_eager",
    "constant_requires_grad",
    "leaf_outside_region",
    "eager_only_default",
    "sort_items_by_key",
    "clone_not_deepcopy",
    "random_out_of_place",
    "reduce_not_tolist",
    "eager_progress_bar",
    "data_dtype_rebind",
    "compiled_call_arguments",
    "list_for_hasattr",
    "branch_to_where",
    "branch_to_cond",
    "while_to_while_loop",
    "early_exit_masked",
    "guard_to_check",
    "iterate_source_list",
    "eager_module_setup",
    "capture_hooks_at_init",
    "nonstrict_helper",
    "traced_autograd_grad",
    "unroll_loop",
    "hoist_with",
    "hoist_try",
    "eager_helper",
)


def _rule_of(module_name: str) -> type:
    """The one rule class `graphweld.codemods.<module_name>` defines."""
    from graphweld.rule import Rule

    module = importlib.import_module(f"{__name__}.{module_name}")
    (rule,) = (
        value for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, Rule) and value.__module__ == module.__name__
    )
    return rule


def __getattr__(name: str) -> Any:
    if name in ("RULES", "RULES_BY_ID"):
        rules = tuple(_rule_of(module_name) for module_name in RULE_MODULES)
        globals().update(RULES=rules, RULES_BY_ID={rule.id: rule for rule in rules})
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["RULES", "RULES_BY_ID", "RULE_MODULES"]
