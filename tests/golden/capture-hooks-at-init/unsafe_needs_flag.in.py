# settings: assume_compiled=true
from ...utils.output_capturing import select_hidden_states


class LlavaModel(PreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.vision_tower = AutoModel.from_config(config.vision_config)
        self.post_init()

    @select_hidden_states("vision_feature_layer")
    def get_image_features(self, pixel_values, vision_feature_layer=-1, **kwargs):
        return self.vision_tower(pixel_values, **kwargs).hidden_states[vision_feature_layer]
