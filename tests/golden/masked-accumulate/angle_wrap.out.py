# settings: assume_compiled=true
# Angles wrapped into a range by adding or taking a full turn where they fall outside it
# (kornia's feature orientations and its AdaLAM matcher's angle differences).
import math

import torch


def wrap_orientation(directions: torch.Tensor) -> torch.Tensor:
    oris = torch.atan2(directions[..., 1], directions[..., 0])
    oris.index_put_((oris < 0,), oris.new_tensor(2.0 * math.pi), accumulate=True)
    return oris


def orientation_diff(o1: torch.Tensor, o2: torch.Tensor) -> torch.Tensor:
    diff = o2 - o1
    diff.index_put_((diff < -180,), diff.new_tensor(360), accumulate=True)
    diff.index_put_((diff >= 180,), diff.new_tensor(-360), accumulate=True)
    return diff
