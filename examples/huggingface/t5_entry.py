"""A small T5 (no download): graphweld's entry convention for `explain` / `fix --entry`.

    graphweld explain examples/huggingface/t5_entry.py
"""

import torch
from transformers import T5Config, T5ForConditionalGeneration


def my_model_function():
    torch.manual_seed(0)
    config = T5Config(vocab_size=128, d_model=64, d_ff=128, num_layers=2, num_heads=2, d_kv=32)
    return T5ForConditionalGeneration(config)


def GetInput():
    generator = torch.Generator().manual_seed(0)
    return {
        "input_ids": torch.randint(0, 128, (1, 8), generator=generator),
        "decoder_input_ids": torch.randint(0, 128, (1, 8), generator=generator),
    }
