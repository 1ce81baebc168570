"""A vision-language model in the shape of transformers' Llava: `get_image_features` always asks the
vision tower for the hidden state of one of its layers."""

import torch
from torch import nn

from .utils.output_capturing import capture_outputs, select_hidden_states


class VisionTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(3))

    @capture_outputs
    def forward(self, pixel_values):
        hidden = pixel_values
        for layer in self.layers:
            hidden = torch.tanh(layer(hidden))
        return hidden


class VisionLanguageModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.vision_tower = VisionTower()
        self.projector = nn.Linear(8, 4)
        self.post_init()

    def post_init(self):
        nn.init.zeros_(self.projector.bias)

    @select_hidden_states("vision_feature_layer")
    def get_image_features(self, pixel_values, vision_feature_layer=-2, **kwargs):
        _, hidden_states = self.vision_tower(pixel_values, **kwargs)
        return self.projector(hidden_states[vision_feature_layer])

    def forward(self, pixel_values):
        return self.get_image_features(pixel_values).softmax(-1)
