# settings: unsafe_fixes=true site_lines=28,43
# A spiking neuron's first state (Norse's cells build theirs this way): the membrane voltage of a
# state the function builds and returns is marked as requiring grad, where a run saw the break;
# with a refractory state, the voltage one field deeper.
from typing import NamedTuple

import torch
from torch import nn


class LIFState(NamedTuple):
    v: torch.Tensor
    i: torch.Tensor


class RefractoryState(NamedTuple):
    lif: LIFState
    rho: torch.Tensor


class LIFCell(nn.Module):
    def __init__(self, v_leak=0.0):
        super().__init__()
        self.register_buffer("v_leak", torch.as_tensor(v_leak))

    def initial_state(self, input_tensor):
        state = LIFState(v=torch.full(input_tensor.shape, float(self.v_leak)), i=torch.zeros_like(input_tensor))
        if not torch.compiler.is_compiling():
            state.v.requires_grad = True
        return state

    def forward(self, input_tensor, state=None):
        state = state if state is not None else self.initial_state(input_tensor)
        v = state.v + 0.1 * (self.v_leak - state.v + state.i)
        spikes = (v > 1.0).to(v.dtype)
        return spikes, LIFState(v=v * (1 - spikes), i=0.8 * state.i + input_tensor)


class RefractoryCell(LIFCell):
    def initial_state(self, input_tensor):
        state = RefractoryState(
            lif=LIFState(v=torch.zeros_like(input_tensor), i=torch.zeros_like(input_tensor)), rho=torch.zeros_like(input_tensor)
        )
        if not torch.compiler.is_compiling():
            state.lif.v.requires_grad = True
        return state
