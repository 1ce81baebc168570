# settings: unsafe_fixes=true assume_compiled=true
from transformers.utils.output_capturing import maybe_install_capturing_hooks, select_hidden_states as selects


class InternVLModel(PreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.vision_tower = AutoModel.from_config(config.vision_config)
        self.post_init()
        maybe_install_capturing_hooks(self.vision_tower)

    @selects("vision_feature_layer")
    def get_image_features(self, pixel_values, vision_feature_layer=-1, **kwargs):
        vision_features = self.vision_tower(pixel_values=pixel_values, return_dict=True, **kwargs)
        return self.pixel_shuffle(vision_features.hidden_states[vision_feature_layer])
