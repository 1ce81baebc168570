# settings: unsafe_fixes=true site_lines=22,29,36
# Flags a run saw break, on a state the function did not build by a call or does not return: a
# dictionary's entry (predictive coding differentiates with respect to it), a state the module
# keeps, and a state built only to be differentiated here. Left alone: each may be the point.
from typing import NamedTuple

import torch
from torch import nn


class LIFState(NamedTuple):
    v: torch.Tensor
    i: torch.Tensor


class PredictiveLayer(nn.Module):
    def initial_state(self, batch_size):
        state = {
            "x": torch.ones(batch_size, 4) / 4,
            "e": torch.zeros(batch_size, 4),
        }
        state["x"].requires_grad = True
        return state


class KeptStateCell(nn.Module):
    def initial_state(self, input_tensor):
        state = self.method.state
        state.v.requires_grad = True
        return state


class CallerStateCell(nn.Module):
    def step(self, input_tensor, state):
        fresh = LIFState(v=state.v.detach(), i=input_tensor)
        fresh.v.requires_grad = True
        return fresh.v * 2
