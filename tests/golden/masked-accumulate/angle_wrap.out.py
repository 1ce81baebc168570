# settings: assume_compiled=true
# Angles wrapped into a range by adding or taking a full turn where they fall outside it
# (kornia's feature orientations and its AdaLAM matcher's angle differences).
import math

import torch


def wrap_orientation(oris):
    oris = torch.atan2(oris[..., 1], oris[..., 0])
    oris.index_put_((oris < 0,), oris.new_tensor(2.0 * math.pi), accumulate=True)
    return oris


def angle_difference(a, b):
    diff = a - b
    diff.index_put_((diff < -180,), diff.new_tensor(360), accumulate=True)
    diff.index_put_((diff >= 180,), diff.new_tensor(-360), accumulate=True)
    return diff
