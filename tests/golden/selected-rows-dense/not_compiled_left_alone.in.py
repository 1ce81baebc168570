# Nothing here is compiled: left alone.
import torch


def place(inputs_embeds: torch.Tensor, input_ids: torch.Tensor, value: float) -> torch.Tensor:
    mask = input_ids == 3
    if mask.any():
        inputs_embeds[mask] = value
    return inputs_embeds
