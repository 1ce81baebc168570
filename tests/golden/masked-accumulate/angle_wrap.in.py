# settings: assume_compiled=true
# Angles wrapped into a range by adding or taking a full turn where they fall outside it
# (kornia's feature orientations and its AdaLAM matcher's angle differences).
import math

import torch


def wrap_orientation(directions: torch.Tensor) -> torch.Tensor:
    oris = torch.atan2(directions[..., 1], directions[..., 0])
    oris[oris < 0] += 2.0 * math.pi
    return oris


def orientation_diff(o1: torch.Tensor, o2: torch.Tensor) -> torch.Tensor:
    diff = o2 - o1
    diff[diff < -180] += 360
    diff[diff >= 180] -= 360
    return diff
