# settings: unsafe_fixes=true
# Hugging Face's speech encoders (Wav2Vec2, HuBERT, WavLM, SEW...): the feature encoder marks its
# input as requiring grad for reentrant gradient checkpointing, in every training step.
import torch
from torch import nn


class FeatureEncoder(nn.Module):
    def __init__(self, conv_layers):
        super().__init__()
        self.conv_layers = nn.ModuleList(conv_layers)
        self._requires_grad = True

    def _freeze_parameters(self):
        for param in self.parameters():
            param.requires_grad = False
        self._requires_grad = False

    def forward(self, input_values):
        hidden_states = input_values[:, None]

        # make sure hidden_states require grad for gradient_checkpointing
        if self._requires_grad and self.training:
            if not torch.compiler.is_compiling():
                hidden_states.requires_grad = True

        for conv_layer in self.conv_layers:
            hidden_states = conv_layer(hidden_states)

        return hidden_states


encoder = torch.compile(FeatureEncoder([nn.Conv1d(1, 4, 3)]))
