# A helper returning a NamedTuple, a namedtuple or a dataclass: Dynamo refuses those as the output
# of a nonstrict_trace call, so the rewrite would break again in its own wrapper.
import collections
import dataclasses
from typing import NamedTuple

import torch


class Split(NamedTuple):
    head: torch.Tensor
    tail: torch.Tensor


Pair = collections.namedtuple("Pair", "left right")


@dataclasses.dataclass
class Stats:
    mean: torch.Tensor


def split(x) -> Split:
    torch._dynamo.graph_break()
    return Split(x[:1], x[1:])


def pair(x):
    torch._dynamo.graph_break()
    return Pair(x + 1, x - 1)


def stats(x):
    torch._dynamo.graph_break()
    return Stats(x.mean())


@torch.compile
def run(x):
    return split(x).head + pair(x).left + stats(x).mean
