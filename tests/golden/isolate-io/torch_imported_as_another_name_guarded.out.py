# settings: unsafe_fixes=true assume_compiled=true
# The module imports torch as `th`: the guard uses that name and adds no import.
import torch as th


def step(x):
    if not th.compiler.is_compiling():
        open("step.log", "a").close()
    return th.relu(x)
