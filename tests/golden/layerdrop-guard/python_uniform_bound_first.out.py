# settings: assume_compiled=true
# Older transformers' spelling: Python's random.uniform(0, 1), bound first (Dynamo inlines it).
import random

import torch
from torch import nn


class Decoder(nn.Module):
    def forward(self, hidden_states):
        for idx, decoder_layer in enumerate(self.layers):
            dropout_probability = random.uniform(0, 1)
            if self.training and self.layerdrop > 0 and (dropout_probability < self.layerdrop):
                continue
            hidden_states = decoder_layer(hidden_states)
        return hidden_states
