"""A small Grounding DINO (no download; Swin image backbone and BERT text backbone built from small
configs): graphweld's entry convention for `explain` / `fix --entry`.

    graphweld explain examples/huggingface/grounding_dino_entry.py
"""

import torch
from transformers import BertConfig, GroundingDinoConfig, GroundingDinoModel, SwinConfig


def my_model_function():
    torch.manual_seed(0)
    config = GroundingDinoConfig(
        backbone_config=SwinConfig(
            image_size=64, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[1, 2], window_size=4,
            out_features=["stage1", "stage2"],
        ),
        text_config=BertConfig(
            vocab_size=128, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
            max_position_embeddings=64,
        ),
        d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
        encoder_ffn_dim=64, decoder_ffn_dim=64, num_queries=8, num_feature_levels=2, encoder_n_points=2,
        decoder_n_points=2, max_text_len=16, use_timm_backbone=False, use_pretrained_backbone=False,
    )
    return GroundingDinoModel(config).eval()


def GetInput():
    generator = torch.Generator().manual_seed(0)
    return {
        "pixel_values": torch.randn(1, 3, 64, 64, generator=generator),
        "input_ids": torch.randint(3, 128, (1, 6), generator=generator),
    }
