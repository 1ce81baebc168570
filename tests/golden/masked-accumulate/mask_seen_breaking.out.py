# settings: site_lines=12,14,15
# A mask the function is given, which a run saw break where it selects (an audio model adds its
# text and audio streams to the positions of each), and a counter behind a stopping mask.
import torch
from torch import nn


class DualStream(nn.Module):
    def forward(self, hidden_states, audio_token_mask, text_hidden_states, audio_hidden_states, steps, is_stopped):
        hidden_states = hidden_states.clone()
        if text_hidden_states is not None:
            hidden_states.index_put_(
                (~audio_token_mask,),
                torch.as_tensor(text_hidden_states.to(hidden_states.device), dtype=hidden_states.dtype, device=hidden_states.device),
                accumulate=True,
            )
        if audio_hidden_states is not None:
            hidden_states.index_put_(
                (audio_token_mask,),
                torch.as_tensor(audio_hidden_states.to(hidden_states.device), dtype=hidden_states.dtype, device=hidden_states.device),
                accumulate=True,
            )
        steps.lengths.index_put_((~is_stopped,), steps.lengths.new_tensor(1), accumulate=True)
        return hidden_states
