"""A small LayoutLMv3 (no download, text only: no visual embedding): graphweld's entry convention.

    graphweld explain examples/huggingface/layoutlmv3_entry.py
"""

import torch
from transformers import LayoutLMv3Config, LayoutLMv3Model


def my_model_function():
    torch.manual_seed(0)
    config = LayoutLMv3Config(
        vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=64, max_2d_position_embeddings=128, coordinate_size=6, shape_size=4,
        input_size=32, patch_size=16, visual_embed=False, has_relative_attention_bias=False,
        has_spatial_attention_bias=False,
    )
    return LayoutLMv3Model(config).eval()


def GetInput():
    generator = torch.Generator().manual_seed(0)
    return {
        "input_ids": torch.randint(0, 128, (1, 8), generator=generator),
        "bbox": torch.randint(0, 100, (1, 8, 4), generator=generator).sort(-1).values,
    }
