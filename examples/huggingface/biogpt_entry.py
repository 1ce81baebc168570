"""A small BioGPT (no download): graphweld's entry convention for `explain` / `fix --entry`.

    graphweld explain examples/huggingface/biogpt_entry.py
"""

import torch
from transformers import BioGptConfig, BioGptForCausalLM


def my_model_function():
    torch.manual_seed(0)
    config = BioGptConfig(
        vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=64, pad_token_id=0,
    )
    return BioGptForCausalLM(config).eval()


def GetInput():
    generator = torch.Generator().manual_seed(0)
    return {"input_ids": torch.randint(3, 128, (1, 8), generator=generator)}
