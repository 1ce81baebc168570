"""capture-hooks-at-init: the output-capturing hooks a model always needs are installed when it is
built, not on its first compiled call."""

from __future__ import annotations

import libcst as cst

from graphweld.analysis.names import decorator_name
from graphweld.positions import node_spans
from graphweld.rule import Rule, Safety
from graphweld.walk import iter_nodes

# transformers' decorator for a method that always asks a submodel for some of its hidden states,
# the function that installs a model's output-capturing hooks once, and the module of both.
_SELECTS = "select_hidden_states"
_INSTALL = "maybe_install_capturing_hooks"
_MODULE = "output_capturing"


class CaptureHooksAtInit(Rule):
    """Install the output-capturing hooks a model always asks a submodel for when the model is built.

    ## What it fixes
    A transformers model class with a method decorated with `@select_hidden_states(...)` that
    forwards its keyword arguments to a submodel (`self.vision_tower(pixel_values, **kwargs)`):
    the decorator asks that submodel for hidden states on every call, and transformers installs
    the forward hooks that collect them lazily, the first time they are asked for
    (`maybe_install_capturing_hooks`, from the submodel's `@capture_outputs` wrapper). Llava,
    InternVL, Qianfan-OCR, Aria, Mistral 3 and the other vision-language models that pick a vision
    layer's features do this in `get_image_features`.

    This rule is keyed on one library's names (transformers' `select_hidden_states` and
    `maybe_install_capturing_hooks`), a last resort: the mechanism under it, state a first call
    sets up lazily inside the compiled region, has no general rewrite, and the break is in
    transformers' own plumbing, which every vision-language model of it shares.

    ## Why the graph breaks
    The first call is the one `torch.compile` traces, so Dynamo meets the installation: a
    `threading.Lock` taken as a context manager ("Unsupported context manager", GB0142),
    `register_forward_hook` ("setattr() on unsupported type", GB0467) and the
    `inspect.Signature.bind` of the decorator (GB0198). A break inside nested calls breaks once for
    every frame on the stack, and the graphs it splits stay split on every later call, although
    the hooks are installed by then. Installed when the model is built, as transformers itself
    does for backbones (`BackboneMixin.post_init`), the hooks are already there when Dynamo
    traces: it inlines them and the call compiles without those breaks.

    ## Example
    ```python
    from ...utils.output_capturing import select_hidden_states

    class LlavaModel(LlavaPreTrainedModel):
        def __init__(self, config):
            super().__init__(config)
            self.vision_tower = AutoModel.from_config(config.vision_config)
            ...
            self.post_init()

        @select_hidden_states("vision_feature_layer")
        def get_image_features(self, pixel_values, vision_feature_layer=None, **kwargs):
            image_outputs = self.vision_tower(pixel_values, return_dict=True, **kwargs)
            ...
    ```
    becomes
    ```python
    from ...utils.output_capturing import maybe_install_capturing_hooks, select_hidden_states

    class LlavaModel(LlavaPreTrainedModel):
        def __init__(self, config):
            ...
            self.post_init()
            maybe_install_capturing_hooks(self.vision_tower)
    ```

    ## Safety
    Unsafe. The outputs are those of the original: the hooks are the same ones, installed by the
    same function (which marks the submodel, so the lazy path installs nothing again), and they do
    nothing until a call asks for hidden states. What changes is when they exist: a module inside
    the submodel replaced after the model is built is not hooked (the lazy installation would hook
    the replacement), and a model whose image path is never called has hooks it would not have had
    (pickling the whole model object, `torch.save(model)`, fails on them as it does after the first
    image call). Taken only where the class's `__init__` ends its construction with
    `self.post_init()`, the method forwards `**kwargs` to exactly one `self.<submodel>(...)`, and
    the module imports `select_hidden_states` from transformers' `output_capturing`. `fix --entry`
    takes it where the run saw a break on the way through that call.
    """

    id = "capture-hooks-at-init"
    library = "transformers"
    reference = "https://docs.pytorch.org/docs/stable/torch.compiler_troubleshooting.html"
    summary = "Install the output-capturing hooks a model always asks a submodel for when the model is built"
    # The README's table of rules (generated from these): what it finds, how it rewrites, its default.
    finds = (
        "a transformers model with a method decorated `@select_hidden_states(...)` that forwards `**kwargs` "
        "to `self.<submodel>(...)` (Llava, InternVL and the other vision-language models picking a vision "
        "layer): the submodel's output-capturing hooks are installed lazily, under a lock, inside the first "
        "compiled call"
    )
    rewrite = "call `maybe_install_capturing_hooks(self.<submodel>)` right after `self.post_init()` in `__init__`"
    default = "unsafe: the hooks exist from construction (a module replaced later is not hooked)"
    trigger_words = (_SELECTS,)
    needs_breaker_call = False
    fixes_from_callers = True
    node_types = (cst.ClassDef,)

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        self._import: tuple[cst.SimpleStatementLine, str, str | None] | None = None
        self._looked = False

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        found = self._output_capturing_import()
        if found is None:
            return
        statement, selects, install = found
        methods = [s for s in node.body.body if isinstance(s, cst.FunctionDef)]  # type: ignore[union-attr]
        init = next((m for m in methods if m.name.value == "__init__"), None)
        post_init = _post_init_call(init) if init is not None else None
        if post_init is None:
            return
        for method in methods:
            if not any(decorator_name(d) == selects for d in method.decorators):
                continue
            call = _forwarding_call(method)
            if call is None or not self._reached(method, call):
                continue
            submodel = call.func.attr.value  # type: ignore[attr-defined]
            if install is not None and _installs(init, install, submodel):  # type: ignore[arg-type]
                return  # done already: a second run changes nothing
            name = install or _INSTALL
            added = cst.parse_statement(f"{name}(self.{submodel})\n")
            extra = [] if install is not None else [(statement, [_with_install_imported(statement)])]
            message = (
                f"`{method.name.value}` always asks `self.{submodel}` for hidden states, and transformers installs "
                "the hooks that collect them on the first call, inside the compiled one (a lock, "
                f"`register_forward_hook`: breaks on every frame): install them in `__init__` with `{name}`"
            )
            self.propose(
                post_init, [post_init, added], anchor=post_init, message=message, safety=Safety.UNSAFE,
                extra=extra, resolves=[call],
            )  # fmt: skip
            return

    def _reached(self, method: cst.FunctionDef, call: cst.Call) -> bool:
        """Whether the submodel call is compiled: a run saw a break on the way through it, or the
        method is a compiled region (`--assume-compiled`, or compiled where the module says)."""
        if self.context.regions.is_compiled(method):
            return True
        lines = self.context.evidence.stack_lines
        if not lines:
            return False
        span = node_spans(self.context.module, [call], self.context.text).get(id(call))
        return span is not None and any(span.start_line <= line <= span.end_line for line in lines)

    def _output_capturing_import(self) -> tuple[cst.SimpleStatementLine, str, str | None] | None:
        """The `from ...output_capturing import ...` statement importing `select_hidden_states`,
        the local name of that decorator, and the local name of the installer if imported."""
        if not self._looked:
            self._looked = True
            for statement in self.context.module.body:
                if not isinstance(statement, cst.SimpleStatementLine):
                    continue
                for small in statement.body:
                    if isinstance(small, cst.ImportFrom) and _imports_from_output_capturing(small):
                        names = _bound_names(small)
                        if _SELECTS in names:
                            self._import = (statement, names[_SELECTS], names.get(_INSTALL))
                            break
                if self._import is not None:
                    break
        return self._import


def _imports_from_output_capturing(node: cst.ImportFrom) -> bool:
    if isinstance(node.names, cst.ImportStar) or node.module is None:
        return False
    module = node.module
    last = module.attr.value if isinstance(module, cst.Attribute) else module.value  # type: ignore[union-attr]
    return last == _MODULE


def _bound_names(node: cst.ImportFrom) -> dict[str, str]:
    """Imported name -> the local name it is bound to."""
    names = {}
    for alias in node.names:  # type: ignore[union-attr]
        if isinstance(alias.name, cst.Name):
            local = alias.asname.name.value if alias.asname is not None else alias.name.value  # type: ignore[union-attr]
            names[alias.name.value] = local
    return names


def _with_install_imported(statement: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
    """The import statement with the installer added to its names, in alphabetical place when
    the names are sorted."""
    node = next(small for small in statement.body if isinstance(small, cst.ImportFrom))
    aliases = list(node.names)  # type: ignore[arg-type]
    added = cst.ImportAlias(name=cst.Name(_INSTALL))
    names = [alias.name.value for alias in aliases if isinstance(alias.name, cst.Name)]
    at = len(aliases)
    for key in (str, str.lower):  # sorted as isort does (upper case first), or ignoring case
        if names == sorted(names, key=key):
            at = next((i for i, name in enumerate(names) if key(name) > key(_INSTALL)), len(aliases))
            break
    last = aliases[-1]
    if at == len(aliases):
        aliases[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        aliases.append(added.with_changes(comma=last.comma))
    else:
        aliases.insert(at, added.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
    replaced = node.with_changes(names=aliases)
    return statement.with_changes(body=[replaced if small is node else small for small in statement.body])


def _post_init_call(init: cst.FunctionDef) -> cst.SimpleStatementLine | None:
    """The `self.post_init()` statement that ends `__init__`'s construction (its last statement)."""
    body = init.body.body  # type: ignore[union-attr]
    last = body[-1] if body else None
    if isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 and isinstance(last.body[0], cst.Expr):
        call = last.body[0].value
        if (
            isinstance(call, cst.Call)
            and not call.args
            and isinstance(call.func, cst.Attribute)
            and isinstance(call.func.value, cst.Name)
            and call.func.value.value == "self"
            and call.func.attr.value == "post_init"
        ):
            return last
    return None


def _forwarding_call(method: cst.FunctionDef) -> cst.Call | None:
    """The one `self.<submodel>(..., **kwargs)` call the method forwards its keyword arguments to."""
    star = method.params.star_kwarg
    if star is None:
        return None
    kwargs = star.name.value
    calls = [
        node
        for node in iter_nodes(method.body)
        if isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and isinstance(node.func.value, cst.Name)
        and node.func.value.value == "self"
        and any(arg.star == "**" and isinstance(arg.value, cst.Name) and arg.value.value == kwargs for arg in node.args)
    ]
    return calls[0] if len(calls) == 1 else None


def _installs(init: cst.FunctionDef, install: str, submodel: str) -> bool:
    """Whether `__init__` already calls the installer on the submodel."""
    for node in iter_nodes(init.body):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value == install
            and len(node.args) == 1
            and isinstance(node.args[0].value, cst.Attribute)
            and node.args[0].value.attr.value == submodel
        ):
            return True
    return False
