# settings: unsafe_fixes=true assume_compiled=true
# call: mask_pads(torch.tensor([[1, 0, 0], [2, 3, 0]]), torch.ones(2, 3), torch.ones(2, 3)); mask_pads(torch.tensor([[1, 2]]), torch.ones(1, 2), torch.ones(1, 2))
# RAG's loss (transformers, modeling_rag.py): the pads' terms are zeroed in place, only when there
# are pads; zeroing where the mask selects nothing changes nothing.
import torch


def mask_pads(target: torch.Tensor, ll: torch.Tensor, smooth_obj: torch.Tensor, pad_token_id: int = 0):
    pad_mask = target.eq(pad_token_id)
    if torch.compiler.is_compiling() or pad_mask.any():
        ll.masked_fill_(pad_mask, 0.0)
        smooth_obj.masked_fill_(pad_mask, 0.0)
    return ll.sum(-1), smooth_obj.sum(-1)
