import torch
from torch import nn


class Decoder(nn.Module):
    def forward(self, hidden_states):
        for layer in self.layers:
            dropout_probability = torch.rand([])
            if self.training and self.config.decoder_layerdrop > 0 and dropout_probability < self.config.decoder_layerdrop:
                continue
            hidden_states = layer(hidden_states)
        return hidden_states


decoder = torch.compile(Decoder())
