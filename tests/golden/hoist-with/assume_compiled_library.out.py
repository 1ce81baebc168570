# settings: assume_compiled=true
import logging

import torch

logger = logging.getLogger(__name__)


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def library_function(x):
    with Ctx():
        x = x + 1
    torch._dynamo.graph_break()
    with Ctx():
        return x
