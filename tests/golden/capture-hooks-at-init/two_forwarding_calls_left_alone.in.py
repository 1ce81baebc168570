# settings: unsafe_fixes=true assume_compiled=true
from ...utils.output_capturing import select_hidden_states


class Model(PreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.vision_tower = AutoModel.from_config(config.vision_config)
        self.audio_tower = AutoModel.from_config(config.audio_config)
        self.post_init()

    @select_hidden_states("feature_layer")
    def get_features(self, pixel_values, audio_values, feature_layer=-1, **kwargs):
        image = self.vision_tower(pixel_values, **kwargs).hidden_states[feature_layer]
        audio = self.audio_tower(audio_values, **kwargs).hidden_states[feature_layer]
        return image, audio
