# settings: unsafe_fixes=true
import math

import numpy as np
import torch
from torch import nn


class BlockSparseAttention(nn.Module):
    """BigBird's random-attention plan: NumPy on Python numbers sizes the plan's arrays."""

    def __init__(self, block_size=2, num_heads=2):
        super().__init__()
        self.block_size = block_size
        self.num_heads = num_heads

    @staticmethod
    def _rand_attn_plan(seq_length, block_size, num_rand_blocks):
        plan_from_length, plan_num_rand_blocks = [], []
        if (2 * num_rand_blocks + 5) < (seq_length // block_size):
            plan_from_length.append(int((2 * num_rand_blocks + 5) * block_size))
            plan_num_rand_blocks.append(num_rand_blocks)
        plan_from_length.append(seq_length)
        plan_num_rand_blocks.append(0)
        return plan_from_length, plan_num_rand_blocks

    def _rand_mask_with_head(self, seq_length, plan_from_length, plan_num_rand_blocks):
        num_blocks = seq_length // self.block_size
        max_plan_idx = plan_from_length.index(seq_length)
        rand_attn = [
            np.zeros((num_blocks, np.sum(plan_num_rand_blocks[: max_plan_idx + 1])), dtype=np.int32)
            for i in range(self.num_heads)
        ]
        for nh in range(self.num_heads):
            rand_attn[nh] = rand_attn[nh][1 : num_blocks - 1, :]
        return rand_attn

    def forward(self, hidden_states):
        seq_length = hidden_states.shape[1]
        plan_from_length, plan_num_rand_blocks = self._rand_attn_plan(seq_length, self.block_size, 3)
        rand_attn = self._rand_mask_with_head(seq_length, plan_from_length, plan_num_rand_blocks)
        rand_attn = torch.tensor(np.stack(rand_attn, axis=0), dtype=torch.long)
        scale = 1 / math.sqrt(hidden_states.shape[-1])
        return hidden_states * scale + rand_attn.sum()


model = torch.compile(BlockSparseAttention())
