# settings: unsafe_fixes=true site_lines=20 data_dependent_lines=20
# Hugging Face's speech encoders in training, with LayerDrop above 0: the draw decides whether the
# layer runs, and a run saw Dynamo stop on that `if`. Nothing is rewritten; the report says why.
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(2))

    def forward(self, hidden_states):
        for layer in self.layers:
            skip_the_layer = False
            if self.training and self.config.layerdrop > 0.0:
                dropout_probability = torch.rand([])
                skip_the_layer = dropout_probability < self.config.layerdrop
            if not skip_the_layer:
                hidden_states = layer(hidden_states)
        return hidden_states
