# settings: unsafe_fixes=true
# Without `else`, `x = torch.where(c, f, x)` keeps the old `x`; a name the branch binds for the
# first time (diffusers' OmniGen processor: `if pad_l > 0: pad_mask = ...`, twice) has none, and
# the rewrite would raise NameError: left alone.
import torch


@torch.compile
def padded(mask: torch.Tensor, text_length: int, width: int) -> torch.Tensor:
    kept = torch.sum(mask)
    pad_l = text_length - kept
    temp_mask = torch.ones(width, width)
    if pad_l > 0:
        pad_mask = torch.zeros(width, width)
        temp_mask = temp_mask + pad_mask
        pad_mask = torch.ones(width, width)
        temp_mask = temp_mask * pad_mask
    return temp_mask
