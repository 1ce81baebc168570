"""A small Longformer with global attention on the first token (no download): graphweld's entry
convention for `explain` / `fix --entry`. Its global-attention path has data-dependent shapes.

    graphweld explain examples/huggingface/longformer_global_entry.py
"""

import torch
from transformers import LongformerConfig, LongformerModel


def my_model_function():
    torch.manual_seed(0)
    config = LongformerConfig(
        vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=64, attention_window=4, pad_token_id=1,
    )
    return LongformerModel(config).eval()


def GetInput():
    generator = torch.Generator().manual_seed(0)
    input_ids = torch.randint(3, 128, (1, 8), generator=generator)
    global_attention_mask = torch.zeros_like(input_ids)
    global_attention_mask[:, 0] = 1
    return {"input_ids": input_ids, "global_attention_mask": global_attention_mask}
