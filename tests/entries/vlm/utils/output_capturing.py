"""The shape of transformers' output capturing (`transformers/utils/output_capturing.py`, 5.x), in
small: a model's forward hooks that collect hidden states are installed lazily, under a lock, the
first time a call asks for them; `select_hidden_states` makes a method always ask its submodel."""

import inspect
import threading
from functools import wraps

# The collector the hooks append to while a capturing call runs (a global, as transformers' is
# under torch.compile).
_active: list = [None]


def install_output_capturing_hook(module, key):
    def output_capturing_hook(module, args, output):
        collected = _active[0]
        if collected is None or key not in collected:
            return
        collected[key].append(output)

    module.register_forward_hook(output_capturing_hook)


def install_all_output_capturing_hooks(model):
    for layer in model.layers:
        install_output_capturing_hook(layer, "hidden_states")
    setattr(model, "_output_capturing_hooks_installed", True)


_hook_installation_lock = threading.Lock()


def maybe_install_capturing_hooks(model):
    if getattr(model, "_output_capturing_hooks_installed", False):
        return
    with _hook_installation_lock:
        if getattr(model, "_output_capturing_hooks_installed", False):
            return
        install_all_output_capturing_hooks(model)


def select_hidden_states(selection):
    def wrapped_fn(func):
        signature = inspect.signature(func)

        @wraps(func)
        def wrapper(self, *args, **kwargs):
            if not kwargs.get("output_hidden_states"):
                arguments = signature.bind(self, *args, **kwargs)
                arguments.apply_defaults()
                kwargs["output_hidden_states"] = arguments.arguments[selection]
            return func(self, *args, **kwargs)

        return wrapper

    return wrapped_fn


def capture_outputs(func):
    @wraps(func)
    def wrapper(self, *args, output_hidden_states=None, **kwargs):
        collected = {"hidden_states": []} if output_hidden_states is not None else {}
        if collected:
            maybe_install_capturing_hooks(self)
        previous, _active[0] = _active[0], collected
        try:
            output = func(self, *args, **kwargs)
        finally:
            _active[0] = previous
        return output, tuple(collected.get("hidden_states", ()))

    return wrapper
