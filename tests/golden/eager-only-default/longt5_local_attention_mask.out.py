# settings: stack_lines=25
# LongT5's form: the mask left None under compilation reaches its local attention.
import torch
from torch import nn
from transformers.utils import is_torchdynamo_compiling


def _get_local_attention_mask(attention_mask, block_len, device):
    blocks = attention_mask.reshape(attention_mask.shape[0], -1, block_len)
    return blocks.unsqueeze(-1).to(device)


class LongT5Stack(nn.Module):
    def __init__(self, block_len=4):
        super().__init__()
        self.block_len = block_len
        self.embed_tokens = nn.Embedding(100, 8)

    def forward(self, input_ids, attention_mask=None):
        inputs_embeds = self.embed_tokens(input_ids)
        batch_size, seq_length = input_ids.shape
        if attention_mask is None:
            mask_seq_length = seq_length
            attention_mask = torch.ones(batch_size, mask_seq_length, device=inputs_embeds.device)
        causal_mask = _get_local_attention_mask(attention_mask, self.block_len, inputs_embeds.device)
        return inputs_embeds, causal_mask
