# settings: site_lines=19
# Pop2Piano's encoder (transformers 5.8): the break is at the statement reading the mask.
import torch
from torch import nn
from transformers.utils import is_torchdynamo_compiling


class Pop2PianoStack(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(100, 8)

    def forward(self, input_ids, attention_mask=None):
        inputs_embeds = self.embed_tokens(input_ids)
        batch_size, seq_length = input_ids.shape
        past_key_values_length = 0
        if attention_mask is None:
            attention_mask = torch.ones(batch_size, past_key_values_length + seq_length, device=inputs_embeds.device)
        causal_mask = attention_mask[:, None, None, :]
        causal_mask = causal_mask.to(dtype=inputs_embeds.dtype)
        return inputs_embeds, (1.0 - causal_mask) * torch.finfo(inputs_embeds.dtype).min
