"""A small Marian (no download): graphweld's entry convention for `explain` / `fix --entry`.

    graphweld explain examples/huggingface/marian_entry.py
"""

import torch
from transformers import MarianConfig, MarianMTModel


def my_model_function():
    torch.manual_seed(0)
    config = MarianConfig(
        vocab_size=128, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
        pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1,
    )
    return MarianMTModel(config).eval()


def GetInput():
    generator = torch.Generator().manual_seed(0)
    return {
        "input_ids": torch.randint(3, 128, (1, 8), generator=generator),
        "decoder_input_ids": torch.randint(3, 128, (1, 8), generator=generator),
    }
