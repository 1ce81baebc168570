# settings: unsafe_fixes=true assume_compiled=true
import torch
from torch import nn

from ...modeling_utils import PreTrainedModel
from ...utils.output_capturing import OutputRecorder, capture_outputs, select_hidden_states


class LlavaModel(PreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.vision_tower = AutoModel.from_config(config.vision_config)
        self.multi_modal_projector = nn.Linear(config.vision_size, config.text_size)
        self.language_model = AutoModel.from_config(config.text_config)
        self.post_init()

    @select_hidden_states("vision_feature_layer")
    def get_image_features(self, pixel_values, vision_feature_layer=None, **kwargs):
        image_outputs = self.vision_tower(
            pixel_values,
            return_dict=True,
            **kwargs,
        )
        selected = image_outputs.hidden_states[vision_feature_layer][:, 1:]
        return self.multi_modal_projector(selected)
