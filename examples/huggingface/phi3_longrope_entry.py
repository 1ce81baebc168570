"""A small Phi-3 with LongRoPE scaling (no download): graphweld's entry convention for `explain` / `fix --entry`.

    graphweld explain examples/huggingface/phi3_longrope_entry.py
"""

import torch
from transformers import Phi3Config, Phi3ForCausalLM


def my_model_function():
    torch.manual_seed(0)
    config = Phi3Config(
        vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
        num_key_value_heads=2, max_position_embeddings=256, original_max_position_embeddings=64,
        pad_token_id=0,
        # head_dim 16: LongRoPE takes one factor per rotary frequency (head_dim / 2).
        rope_scaling={"type": "longrope", "short_factor": [1.0] * 8, "long_factor": [2.0] * 8},
    )
    return Phi3ForCausalLM(config).eval()


def GetInput():
    generator = torch.Generator().manual_seed(0)
    return {"input_ids": torch.randint(3, 128, (1, 8), generator=generator)}
