# settings: unsafe_fixes=true assume_compiled=true
# call: run(1.0); run(float("inf"))
import torch
from torch import nn


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, hidden_states):
        hidden_states = self.linear(hidden_states)
        if self.training:
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.where(
                torch.logical_not(torch.isfinite(hidden_states).all()),
                torch.clamp(hidden_states, min=-clamp_value, max=clamp_value),
                hidden_states,
            )

        return hidden_states


def run(scale):
    torch.manual_seed(0)
    layer = EncoderLayer().train()
    with torch.no_grad():
        layer.linear.weight.mul_(scale)
    return layer(torch.ones(2, 4))


torch.manual_seed(0)
_LAYER = EncoderLayer().train()


def train_forward(hidden_states):
    return _LAYER(hidden_states)
