"""The entry's program as the runs call it (seed 000's convention: `my_model_function()` returns
the model or function, `GetInput()` its input): a fresh model, its inputs, each call recorded as
CPU pytrees for comparison, for inference or as a training step."""

from __future__ import annotations

import contextlib
import sys
from typing import Any


def _to_device(value: Any, device: Any) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, tuple):
        return tuple(_to_device(v, device) for v in value)
    if isinstance(value, list):
        return [_to_device(v, device) for v in value]
    if isinstance(value, dict):
        return {k: _to_device(v, device) for k, v in value.items()}
    return value


def _to_cpu(value: Any, depth: int = 0) -> Any:
    """Outputs as plain pytrees of CPU tensors (dict subclasses such as ModelOutput become dicts;
    other objects, such as a model's key/value cache, become dicts of their attributes, named by
    their type, so that two runs' objects compare by what they hold, not by address)."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, (tuple, list)):
        items = [_to_cpu(v, depth) for v in value]
        return type(value)(items) if type(value) in (tuple, list) else items
    if isinstance(value, dict):
        return {k: _to_cpu(v, depth) for k, v in value.items()}
    if value is None or isinstance(value, (int, float, bool, str, complex)):
        return value
    kind = f"<{type(value).__module__}.{type(value).__qualname__}>"
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict) and depth < _OBJECT_DEPTH:
        return {"type": kind, **{k: _to_cpu(v, depth + 1) for k, v in attributes.items() if not callable(v)}}
    text = repr(value)
    return kind if " at 0x" in text else text


# How deep objects inside objects are taken apart (a cache holds lists of tensors, one level).
_OBJECT_DEPTH = 3


def _call(model: Any, inputs: Any) -> Any:
    if isinstance(inputs, dict):
        return model(**inputs)
    if isinstance(inputs, tuple):
        return model(*inputs)
    return model(inputs)


class Program:
    """The entry's program as the runs call it: a fresh model from its factory, its inputs, and
    one call, for inference (eval mode, no grad) or, with `train`, a training step.

    A training call runs the model in train mode with grad enabled, takes the loss from the
    entry's `GetLoss(output)` (default: the sum of every floating-point tensor in the output) and
    runs backward; it records the output, the loss, and the gradient of every parameter and of
    every input that requires grad, then clears them. An entry that defines
    `train_step(model, batch)` (forward, loss, backward, optimizer step) is called instead; the
    call records what it returns and every parameter after the step.
    """

    def __init__(self, module: Any, factory: str, device: Any, train: bool = False) -> None:
        self.module = module
        self.factory = factory
        self.device = device
        self.train = train
        self.loss = getattr(module, "GetLoss", None)
        self.step = getattr(module, "train_step", None) if train else None
        # Backward graphs (AOTAutograd's) each training call ran, in order.
        self.backward_graphs: list[int] = []

    def fresh_model(self) -> Any:
        import torch

        torch.manual_seed(0)
        model = getattr(self.module, self.factory)()
        if isinstance(model, torch.nn.Module):
            model = model.to(self.device)
            model = model.train() if self.train else model.eval()
        return model

    def entry_input(self, seed: int) -> Any:
        import torch

        torch.manual_seed(seed)
        return _to_device(self.module.GetInput(), self.device)

    def inputs(self) -> list[Any]:
        """The inputs the program is called with, in order: those `GetInputs()` returns, when the
        entry defines it (different lengths, masks, values that take the other side of a branch);
        else the entry's input, the same input made again, and `GetInput()` under another seed
        when that has the same structure, shapes and dtypes (its values may differ; a different
        shape would recompile for a reason of its own)."""
        import torch

        several = getattr(self.module, "GetInputs", None)
        if callable(several):
            torch.manual_seed(0)
            return [_to_device(value, self.device) for value in several()]
        first, again, second = self.entry_input(0), self.entry_input(0), self.entry_input(1)
        return [first, again, second] if _same_layout(first, second) else [first, again]

    def grad_mode(self):  # type: ignore[no-untyped-def]
        import torch

        return torch.enable_grad() if self.train else torch.no_grad()

    def call(self, model: Any, value: Any) -> Any:
        """One call (under the program's grad mode), as the record runs compare. A call that runs
        a backward of its own (a step given as the model) is not given another: its gradients
        are recorded as it left them."""
        if not self.train:
            return _to_cpu(_call(model, value))
        if self.step is not None:
            with _backward_graphs_counted(self.backward_graphs):
                result = self.step(model, value)
            return {"returned": _to_cpu(result), "parameters": _named_tensors(model, "data")}
        ran_backward: list[int] = []
        with _backward_graphs_counted(ran_backward, only_when_run=True):
            output = _call(model, value)
        if ran_backward:
            # The program ran its own backward (a step returned as the model): its gradients.
            self.backward_graphs.extend(ran_backward)
            loss = None
        else:
            loss = self.loss(output) if self.loss is not None else default_loss(output)
            if not getattr(loss, "requires_grad", False):
                raise RuntimeError(
                    "the loss does not require grad: no parameter of the model and no input requires grad "
                    "(define GetLoss(output) in the entry, or make GetInput() return tensors that require grad)"
                )
            self.backward_graphs.append(compiled_backward_graphs(loss))
            loss.backward()
        record = {
            "output": _to_cpu(output),
            "loss": _to_cpu(loss),
            "gradients": _named_tensors(model, "grad"),
            "input_gradients": [_to_cpu(t.grad) for t in _tensor_leaves(value) if t.requires_grad],
        }
        _clear_gradients(model, value)
        return record


def default_loss(output: Any) -> Any:
    """The sum of every floating-point tensor in the output (a model output's logits, hidden
    states, its own loss when given labels...), as one scalar."""
    tensors = [t for t in _tensor_leaves(output) if t.is_floating_point() or t.is_complex()]
    if not tensors:
        raise RuntimeError("the output holds no floating-point tensor to take a loss from: define GetLoss(output)")
    return sum(t.real.float().sum() if t.is_complex() else t.float().sum() for t in tensors)


def _tensor_leaves(value: Any, depth: int = 0) -> list[Any]:
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _tensor_leaves(item, depth)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _tensor_leaves(item, depth)]
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict) and depth < _OBJECT_DEPTH and not callable(value):
        return [leaf for item in attributes.values() for leaf in _tensor_leaves(item, depth + 1)]
    return []


def _named_tensors(model: Any, attribute: str) -> dict[str, Any]:
    """Each parameter's data or gradient by name (a compiled wrapper's `_orig_mod.` dropped, so
    that the eager and compiled runs name them alike)."""
    import torch

    if not isinstance(model, torch.nn.Module):
        return {}
    named = {}
    for name, parameter in model.named_parameters():
        value = getattr(parameter, attribute)
        named[name.replace("_orig_mod.", "")] = None if value is None else value.detach().cpu().clone()
    return named


def _clear_gradients(model: Any, value: Any) -> None:
    import torch

    if isinstance(model, torch.nn.Module):
        model.zero_grad(set_to_none=True)
    for tensor in _tensor_leaves(value):
        tensor.grad = None


@contextlib.contextmanager
def _backward_graphs_counted(counts: list[int], only_when_run: bool = False):  # type: ignore[no-untyped-def]
    """Counts the compiled backward graphs of every backward the program runs itself (a
    train_step's loss is its own): `torch.autograd.backward`, which `Tensor.backward` calls, is
    watched meanwhile. Appends the count to `counts` (with `only_when_run`, only when a backward
    ran)."""
    import torch

    original = torch.autograd.backward
    found = [0]
    runs = [0]

    @torch.compiler.disable  # called where Dynamo broke the graph: never traced itself
    def backward(tensors, *args, **kwargs):  # type: ignore[no-untyped-def]
        runs[0] += 1
        for tensor in [tensors] if isinstance(tensors, torch.Tensor) else list(tensors):
            found[0] += compiled_backward_graphs(tensor)
        return original(tensors, *args, **kwargs)

    torch.autograd.backward = backward
    try:
        yield
    finally:
        torch.autograd.backward = original
        if runs[0] or not only_when_run:
            counts.append(found[0])


def compiled_backward_graphs(loss: Any) -> int:
    """How many compiled graphs the loss's backward runs: AOTAutograd's backward nodes in its
    autograd graph (none with the eager backend, which compiles no backward)."""
    seen: set[int] = set()
    found = 0
    stack = [loss.grad_fn] if getattr(loss, "grad_fn", None) is not None else []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        found += node.name().startswith("CompiledFunctionBackward")
        stack.extend(next_node for next_node, _ in node.next_functions)
    return found


def _same_layout(left: Any, right: Any) -> bool:
    import torch

    if isinstance(left, torch.Tensor) or isinstance(right, torch.Tensor):
        return (
            isinstance(left, torch.Tensor) and isinstance(right, torch.Tensor)
            and left.shape == right.shape and left.dtype == right.dtype and left.device == right.device
        )
    if isinstance(left, (tuple, list)) and isinstance(right, (tuple, list)):
        return type(left) is type(right) and len(left) == len(right) and all(map(_same_layout, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same_layout(left[k], right[k]) for k in left)
    try:
        return type(left) is type(right) and bool(left == right)
    except Exception:  # a value that cannot be compared: not the same input
        return False


def calls(program: Program, model: Any, inputs: list[Any], after_first: Any = None) -> list[Any]:
    """The program called with each input in turn (seeded per call, the same in every run);
    `after_first()` is asked after the first call whether to go on."""
    import torch

    records = []
    with program.grad_mode():
        for index, value in enumerate(inputs):
            torch.manual_seed(index)
            _seed_host_generators(index)
            records.append(program.call(model, value))
            if index == 0 and after_first is not None and not after_first():
                break
    return records


def _seed_host_generators(seed: int) -> None:
    """Python's and NumPy's generators, seeded as torch's is for each call: a program that draws
    from them (SpecAugment's masks, a layer dropped by `random.random()`) draws the same numbers in
    the eager and the compiled run, where they run as eager code."""
    import random

    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed)
