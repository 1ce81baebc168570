# call: run(torch.ones(2, 4), 0.0); run(torch.ones(2, 4), 0.5)
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, layerdrop):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
        self.layerdrop = layerdrop

    def forward(self, hidden_states):
        for layer in self.layers:
            # The draw made inside the test: drawn first, under the training test, so the random
            # stream stays the same.
            if self.training:
                dropout_probability = torch.rand([])
                if self.layerdrop > 0 and dropout_probability < self.layerdrop:
                    continue
            hidden_states = layer(hidden_states)
        for layer in self.layers:
            dropout_probability = torch.rand([])
            if self.layerdrop > 0 and self.layerdrop > dropout_probability:
                continue
            hidden_states = layer(hidden_states)
        return hidden_states


def run(x, layerdrop):
    torch.manual_seed(1)
    encoder = Encoder(layerdrop).train()
    return encoder(x), torch.rand(3)


model = torch.compile(Encoder(0.1))
