import inspect
import sys

import torch


def called_from_tests():
    frame = inspect.currentframe()
    while frame is not None:
        if "test_" in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False


def caller_names(x):
    names = []
    frame = sys._getframe(1)
    while frame is not None:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    return x, names


def lookup_factory(x):
    def lookup(value):
        return inspect.currentframe().f_back.f_locals.get(value)

    return x * 2


@torch.compile
def run(x):
    if called_from_tests():
        x = x + 1
    y, _ = caller_names(x)
    return lookup_factory(y)
