"""A spiking network whose neuron cells build their first state with the membrane voltage marked as
requiring grad (Norse's cells do this in `initial_state`). Dynamo does not trace setting
`requires_grad` (GB0206): each cell's frame breaks there, and the network's frame with it."""

from typing import NamedTuple

import torch
from torch import nn


class LIFState(NamedTuple):
    v: torch.Tensor
    i: torch.Tensor


class LIFCell(nn.Module):
    def __init__(self, v_leak=0.0, threshold=0.5):
        super().__init__()
        self.v_leak = torch.as_tensor(v_leak)
        self.threshold = threshold

    def initial_state(self, input_tensor):
        state = LIFState(v=self.v_leak.detach().expand(input_tensor.shape).clone(), i=torch.zeros_like(input_tensor))
        state.v.requires_grad = True
        return state

    def forward(self, input_tensor, state=None):
        state = state if state is not None else self.initial_state(input_tensor)
        current = 0.8 * state.i + input_tensor
        v = state.v + 0.2 * (self.v_leak - state.v + current)
        # A sigmoid stands for the surrogate gradient of the spike, so gradients flow.
        spikes = torch.sigmoid(8 * (v - self.threshold))
        return spikes, LIFState(v=v * (1 - spikes), i=current)


class Network(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.lif1 = LIFCell()
        self.fc2 = nn.Linear(8, 3)
        self.lif2 = LIFCell()

    def forward(self, frames):
        state1 = state2 = None
        rates = []
        for frame in frames:
            spikes, state1 = self.lif1(self.fc1(frame), state1)
            spikes, state2 = self.lif2(self.fc2(spikes), state2)
            rates.append(spikes)
        return torch.stack(rates).mean(0)


def my_model_function():
    torch.manual_seed(0)
    return Network()


def GetInput():
    torch.manual_seed(0)
    return torch.randn(4, 2, 6)
