"""A small Longformer (no download): graphweld's entry convention for `explain` / `fix --entry`.
Local attention only (no `global_attention_mask`) and 6 tokens, padded by the model to a multiple
of `attention_window`: the setting of GraphMend's measurement. `longformer_global_entry.py` takes
the global-attention path too.

    graphweld explain examples/huggingface/longformer_entry.py
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
    return {"input_ids": torch.randint(3, 128, (1, 6), generator=generator)}
