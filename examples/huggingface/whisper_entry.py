"""A small Whisper (no download): graphweld's entry convention for `explain` / `fix --entry`.

    graphweld explain examples/huggingface/whisper_entry.py
"""

import torch
from transformers import WhisperConfig, WhisperForConditionalGeneration


def my_model_function():
    torch.manual_seed(0)
    config = WhisperConfig(
        vocab_size=128,
        d_model=64,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=128,
        decoder_ffn_dim=128,
        num_mel_bins=80,
        max_source_positions=64,
        max_target_positions=64,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        decoder_start_token_id=1,
    )
    return WhisperForConditionalGeneration(config)


def GetInput():
    generator = torch.Generator().manual_seed(0)
    return {
        "input_features": torch.randn(1, 80, 128, generator=generator),
        "decoder_input_ids": torch.tensor([[1, 5, 6, 7]]),
    }
