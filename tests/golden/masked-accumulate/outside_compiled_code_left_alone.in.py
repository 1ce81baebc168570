# Nothing here is compiled and no run saw a break: the update is left as it is.
import torch


def shift(diff):
    diff[diff >= 180] -= 360
    return diff
