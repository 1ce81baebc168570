# settings: unsafe_fixes=true site_lines=19
# The T5 family's attention: a zero position bias made to require grad under gradient
# checkpointing (here with the method, as other code bases write it), where a run saw the break.
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, n_heads, has_relative_attention_bias=False):
        super().__init__()
        self.n_heads = n_heads
        self.has_relative_attention_bias = has_relative_attention_bias
        self.gradient_checkpointing = False

    def forward(self, scores, position_bias=None):
        if position_bias is None:
            position_bias = torch.zeros((1, self.n_heads, scores.shape[-2], scores.shape[-1]), dtype=scores.dtype)
            if self.gradient_checkpointing and self.training:
                if not torch.compiler.is_compiling():
                    position_bias.requires_grad_(True)
        return scores + position_bias, position_bias
