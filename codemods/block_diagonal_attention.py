"""block-diagonal-attention: a packed sequence's segments, attended one by one, are attended in one call under a block-diagonal mask."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.blocks import block_statements
from graphweld.analysis.names import ImportTable
from graphweld.analysis.scopes import fresh_name, is_scope, mentioned_names
from graphweld.cst_fast import call_code, source
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# Generated lines longer than this put their arguments one per line (99 columns, less room for
# the statement's indentation).
_CALL_WIDTH = 83
_SDPA = "torch.nn.functional.scaled_dot_product_attention"
_SPLIT = "torch.split"
_CAT = ("torch.cat", "torch.concat", "torch.concatenate")


class BlockDiagonalAttention(Rule):
    """Attend a packed sequence's segments in one call, under a block-diagonal mask, instead of one call per segment.

    ## What it fixes
    Attention over a packed sequence that holds several segments (the patches of several images,
    several documents) written as one attention call per segment: `q`, `k` and `v` are cut at the
    segments' lengths with `torch.split(t, lengths.tolist(), dim=d)`, the attention function runs
    on each triple (`for q, k, v in zip(*splits)`) and the results are joined with `torch.cat`
    (assigned, or inside a longer expression: `torch.cat(outs, dim=2).transpose(1, 2)`).
    This is the non-flash path of the vision encoders of Qwen2-VL, Qwen2.5-VL, Qwen3-VL,
    GLM-4V, GLM-OCR, ERNIE 4.5 VL, PaddleOCR-VL and their copies, where the attention function is
    a transformers attention interface called with `attention_mask=None`, and the plain form
    that calls `F.scaled_dot_product_attention` on each triple. The rule is keyed on the
    mechanism (segments cut from a tensor's values, attended apart, joined), not on a library's
    names: the attention function is recognised by its mask argument.

    ## Why the graph breaks
    `lengths.tolist()` reads the lengths out of a tensor ("Data dependent operator", GB0033),
    and the number of segments, the shapes of each and so the number of attention calls depend
    on them. Dynamo stops there, inside a list comprehension, so it skips the whole attention
    frame: every attention layer of the encoder runs eagerly. Attending the whole sequence once,
    with the scores between two different segments masked out, gives every position the same
    keys and weights as its own segment's call did, in shapes known from the input: the dense,
    masked form the PyTorch docs suggest for data-dependent shapes.

    ## Example
    ```python
    lengths = cu_seqlens[1:] - cu_seqlens[:-1]
    splits = [torch.split(tensor, lengths.tolist(), dim=2) for tensor in (query, key, value)]
    attn_outputs = [
        attention_interface(self, q, k, v, attention_mask=None, scaling=self.scaling)[0]
        for q, k, v in zip(*splits)
    ]
    attn_output = torch.cat(attn_outputs, dim=1)
    ```
    becomes
    ```python
    lengths = cu_seqlens[1:] - cu_seqlens[:-1]
    segment_ends = lengths.cumsum(0)
    segment = torch.searchsorted(
        segment_ends,
        torch.arange(query.shape[2], device=segment_ends.device, dtype=segment_ends.dtype),
        right=True,
    )
    segment_mask = torch.zeros(segment.shape[0], segment.shape[0], dtype=query.dtype, device=query.device)
    segment_mask = segment_mask.masked_fill(segment[:, None] != segment[None, :], torch.finfo(query.dtype).min)
    attn_output = attention_interface(self, query, key, value, attention_mask=segment_mask, scaling=self.scaling)[0]
    ```

    ## Safety
    Always unsafe, so only applied with `--unsafe-fixes`; verify with `fix --entry`. The mask is
    additive (0 within a segment, the dtype's most negative number across), as transformers'
    eager attention adds it and `scaled_dot_product_attention` reads a float mask, so a score
    across segments becomes exactly 0 after the softmax; the outputs and gradients are equal up
    to rounding. The cost grows: one call attends the whole sequence, `n²` scores where the
    segments had the sum of their squares, and the mask holds `n²` numbers (64 MiB in float32
    for 4096 patches), which can make the compiled model slower than the eager one with its
    breaks; measure the step time. With attention dropout in training, the random draws differ
    from the original's. A sequence longer than the lengths' sum, which `torch.split` refused,
    is attended as one more segment. Left alone: splits or outputs read anywhere else (attention
    weights kept per segment, as VideoLLaMA 3's loop returns them), a call that already passes a
    mask or asks for a causal one, and statements that are not consecutive.
    """

    id = "block-diagonal-attention"
    reference = "https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html"
    summary = "Attend a packed sequence's segments in one call, under a block-diagonal mask, instead of one call per segment"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "`splits = [torch.split(t, lengths.tolist(), dim=d) for t in (q, k, v)]`, one attention call per "
        "segment over `zip(*splits)`, joined with `torch.cat` (the vision encoders of Qwen2/2.5/3-VL, GLM-4V, "
        "ERNIE 4.5 VL and their copies; `F.scaled_dot_product_attention` alike)"
    )
    rewrite = (
        "one attention call over the whole sequence, with an additive mask that is 0 within a segment and "
        "the dtype's minimum across segments"
    )
    default = "unsafe: n² attention scores and mask where the segments had the sum of their squares; measure"
    trigger_words = ("tolist",)
    needs_breaker_call = False
    node_types = (cst.FunctionDef,)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        context = self.context
        if context.current_function is not node or not context.in_compiled_region:
            return
        imports = context.regions.imports
        torch_name = imports.local_name("torch")
        if torch_name is None:
            return
        for block in _blocks(node):
            statements = block_statements(block)
            for at in range(len(statements) - 2):
                self._try(node, statements[at : at + 3], imports, torch_name)

    def _try(
        self, function: cst.FunctionDef, statements: list[cst.BaseStatement], imports: ImportTable, torch_name: str
    ) -> None:
        split_statement, outputs_statement, cat_statement = statements
        split = _split_parts(split_statement, imports)
        if split is None:
            return
        splits_name, lengths, dim, tensors = split
        outputs = _outputs_parts(outputs_statement, splits_name, imports)
        if outputs is None:
            return
        outputs_name, call, first_item, loop_names = outputs
        cat = _cat_call(cat_statement, outputs_name, imports)
        if cat is None:
            return
        # The splits and the per-segment outputs must be read only where the rewrite replaces them.
        reads = [n.value for n in iter_nodes(function.body) if isinstance(n, cst.Name)]
        if reads.count(splits_name) != 2 or reads.count(outputs_name) != 2:
            return

        module = self.context.module
        taken = mentioned_names([function])
        ends = fresh_name("segment_ends", taken)
        segment = fresh_name("segment", taken | {ends})
        mask = fresh_name("segment_mask", taken | {ends, segment})
        query = source(tensors[0], module)
        lengths_code = source(lengths, module)
        if not isinstance(lengths, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            lengths_code = f"({lengths_code})"
        renamed = call.visit(_Rename(dict(zip(loop_names, (source(t, module) for t in tensors)))))
        single_call = _with_mask(renamed, mask, imports)
        attended: cst.BaseExpression = single_call
        if first_item:
            attended = cst.Subscript(single_call, [cst.SubscriptElement(cst.Index(cst.Integer("0")))])
        joined = _single_assign(cat_statement)
        if joined is not None and joined[1] is cat:
            # `out = torch.cat(outs, ...)`: the call laid out as a formatter would.
            arguments = [_argument_code(arg, module) for arg in single_call.args]
            output_line = call_code(source(single_call.func, module), arguments, _CALL_WIDTH - 4, prefix=f"{joined[0]} = ")
            output = cst.parse_statement(output_line + ("[0]" if first_item else "") + "\n")
            output = output.with_changes(leading_lines=cat_statement.leading_lines)  # type: ignore[union-attr]
        else:
            # The join inside a longer expression: the one call takes its place there.
            output = cat_statement.deep_replace(cat, attended)
        lines = [
            f"{ends} = {lengths_code}.cumsum(0)",
            call_code(
                f"{torch_name}.searchsorted",
                [ends, f"{torch_name}.arange({query}.shape[{dim}], device={ends}.device, dtype={ends}.dtype)", "right=True"],
                _CALL_WIDTH,
                prefix=f"{segment} = ",
            ),
            call_code(
                f"{torch_name}.zeros",
                [f"{segment}.shape[0]", f"{segment}.shape[0]", f"dtype={query}.dtype", f"device={query}.device"],
                _CALL_WIDTH,
                prefix=f"{mask} = ",
            ),
            call_code(
                f"{mask}.masked_fill",
                [f"{segment}[:, None] != {segment}[None, :]", f"{torch_name}.finfo({query}.dtype).min"],
                _CALL_WIDTH,
                prefix=f"{mask} = ",
            ),
        ]
        replacement = [*cst.parse_module("\n".join(lines) + "\n").body, output]
        replacement[0] = replacement[0].with_changes(leading_lines=split_statement.leading_lines)  # type: ignore[union-attr]
        message = (
            f"`{self.context.code(lengths)}.tolist()` cuts the sequence at lengths read from a tensor (data-dependent), "
            "and each segment is attended apart: attend the whole sequence once, with a block-diagonal mask "
            "(unsafe: n² attention scores where the segments had the sum of their squares)"
        )
        self.propose(
            split_statement,
            replacement,
            anchor=split_statement,
            message=message,
            safety=Safety.UNSAFE,
            extra=[(outputs_statement, []), (cat_statement, [])],
        )


def _blocks(function: cst.FunctionDef) -> list[cst.BaseSuite]:
    """The function's own blocks (its body and those of its compound statements), not those of
    nested functions or classes."""
    return [
        node
        for node in iter_nodes(function.body, prune=is_scope)
        if isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite))
    ]


def _argument_code(arg: cst.Arg, module: cst.Module) -> str:
    value = source(arg.value, module)
    if arg.keyword is not None:
        return f"{arg.keyword.value}={value}"
    return f"{arg.star}{value}"


def _single_assign(statement: cst.BaseStatement) -> tuple[str, cst.BaseExpression] | None:
    """`name = value` alone on its line."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    return (target.value, assign.value) if isinstance(target, cst.Name) else None


def _argument(call: cst.Call, position: int, keyword: str) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    return positional[position].value if position < len(positional) else None


def _split_parts(
    statement: cst.BaseStatement, imports: ImportTable
) -> tuple[str, cst.BaseExpression, str, list[cst.BaseExpression]] | None:
    """`splits = [torch.split(t, lengths.tolist(), dim=d) for t in (q, k, v)]` (or `t.split(...)`):
    the splits' name, `lengths`, `d` and `q, k, v`."""
    assigned = _single_assign(statement)
    if assigned is None or not isinstance(assigned[1], cst.ListComp):
        return None
    name, comprehension = assigned
    loop = comprehension.for_in
    if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None or not isinstance(loop.target, cst.Name):
        return None
    if not isinstance(loop.iter, (cst.Tuple, cst.List)) or len(loop.iter.elements) != 3:
        return None
    tensors = [element.value for element in loop.iter.elements]
    if any(isinstance(element, cst.StarredElement) for element in loop.iter.elements):
        return None
    call = comprehension.elt
    if not isinstance(call, cst.Call) or any(arg.star for arg in call.args):
        return None
    each = loop.target.value
    if imports.qualify(call.func) == _SPLIT:
        split_tensor, sizes, dim = _argument(call, 0, "tensor"), _argument(call, 1, "split_size_or_sections"), _argument(call, 2, "dim")
    elif isinstance(call.func, cst.Attribute) and call.func.attr.value == "split":
        split_tensor, sizes, dim = call.func.value, _argument(call, 0, "split_size"), _argument(call, 1, "dim")
    else:
        return None
    if not (isinstance(split_tensor, cst.Name) and split_tensor.value == each):
        return None
    if not (
        isinstance(sizes, cst.Call)
        and not sizes.args
        and isinstance(sizes.func, cst.Attribute)
        and sizes.func.attr.value == "tolist"
    ):
        return None
    if not isinstance(dim, cst.Integer):
        return None
    return name, sizes.func.value, dim.value, tensors


def _outputs_parts(
    statement: cst.BaseStatement, splits: str, imports: ImportTable
) -> tuple[str, cst.Call, bool, list[str]] | None:
    """`outputs = [attend(..., q, k, v, ...)[0] for q, k, v in zip(*splits)]`: the outputs' name,
    the call, whether its first item is taken, and the loop's names. The call must be an
    attention function given no mask: `attention_mask=None`, or `scaled_dot_product_attention`
    without `attn_mask`; and not causal."""
    assigned = _single_assign(statement)
    if assigned is None or not isinstance(assigned[1], cst.ListComp):
        return None
    name, comprehension = assigned
    loop = comprehension.for_in
    if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None:
        return None
    if not isinstance(loop.target, (cst.Tuple, cst.List)) or len(loop.target.elements) != 3:
        return None
    loop_names = [element.value.value for element in loop.target.elements if isinstance(element.value, cst.Name)]
    if len(set(loop_names)) != 3:
        return None
    zipped = loop.iter
    if not (
        isinstance(zipped, cst.Call)
        and isinstance(zipped.func, cst.Name)
        and zipped.func.value == "zip"
        and len(zipped.args) == 1
        and zipped.args[0].star == "*"
        and isinstance(zipped.args[0].value, cst.Name)
        and zipped.args[0].value.value == splits
    ):
        return None
    element = comprehension.elt
    first_item = False
    if (
        isinstance(element, cst.Subscript)
        and len(element.slice) == 1
        and isinstance(element.slice[0].slice, cst.Index)
        and isinstance(element.slice[0].slice.value, cst.Integer)
        and element.slice[0].slice.value.value == "0"
    ):
        element, first_item = element.value, True
    if not isinstance(element, cst.Call) or not _attends_without_mask(element, imports):
        return None
    # Each of q, k, v is passed once, as itself, and read nowhere else in the call.
    passed = [arg.value.value for arg in element.args if isinstance(arg.value, cst.Name) and arg.value.value in loop_names]
    used = [n.value for n in iter_nodes(element) if isinstance(n, cst.Name) and n.value in loop_names]
    if sorted(passed) != sorted(loop_names) or len(used) != 3:
        return None
    return name, element, first_item, loop_names


def _attends_without_mask(call: cst.Call, imports: ImportTable) -> bool:
    keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    if any(arg.star for arg in call.args if arg.star == "*"):
        return False
    causal = keywords.get("is_causal")
    if causal is not None and not (isinstance(causal, cst.Name) and causal.value == "False"):
        return False
    if imports.qualify(call.func) == _SDPA:
        positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
        return "attn_mask" not in keywords and len(positional) == 3
    mask = keywords.get("attention_mask")
    return isinstance(mask, cst.Name) and mask.value == "None"


def _with_mask(call: cst.Call, mask: str, imports: ImportTable) -> cst.Call:
    """The call given the mask: `attention_mask=mask`, or `attn_mask=mask` added to SDPA's."""
    if imports.qualify(call.func) == _SDPA:
        args = list(call.args)
        last = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        added = cst.Arg(
            keyword=cst.Name("attn_mask"),
            value=cst.Name(mask),
            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
        )
        return call.with_changes(args=[*args[:-1], last, added])
    args = [
        arg.with_changes(value=cst.Name(mask)) if arg.keyword is not None and arg.keyword.value == "attention_mask" else arg
        for arg in call.args
    ]
    return call.with_changes(args=args)


def _cat_call(statement: cst.BaseStatement, outputs: str, imports: ImportTable) -> cst.Call | None:
    """The one `torch.cat(outputs, dim=d)` in a simple statement (`out = torch.cat(...)`, or inside
    a longer expression: `torch.cat(outs, dim=2).transpose(1, 2)`)."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    found = [
        node
        for node in iter_nodes(statement)
        if isinstance(node, cst.Call)
        and imports.qualify(node.func) in _CAT
        and isinstance(joined := _argument(node, 0, "tensors"), cst.Name)
        and joined.value == outputs
    ]
    return found[0] if len(found) == 1 else None


class _Rename(cst.CSTTransformer):
    """Names read as the code given for them (a comprehension's names as the tensors they stood for)."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        code = self.names.get(original.value)
        return cst.parse_expression(code) if code is not None else updated
