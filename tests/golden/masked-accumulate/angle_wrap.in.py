# settings: assume_compiled=true
# Angles wrapped into a range by adding or taking a full turn where they fall outside it
# (kornia's feature orientations and its AdaLAM matcher's angle differences).
import math

import torch


def wrap_orientation(oris):
    oris = torch.atan2(oris[..., 1], oris[..., 0])
    oris[oris < 0] += 2.0 * math.pi
    return oris


def angle_difference(a, b):
    diff = a - b
    diff[diff < -180] += 360
    diff[diff >= 180] -= 360
    return diff
