# settings: unsafe_fixes=true site_lines=17 data_dependent_lines=17
# pytorch-crf's mask check (torchcrf/__init__.py): each flag is Python's `and` of a setting and a
# tensor, so it is `False` or a tensor; the check takes it through `torch.as_tensor`.
import torch


class CRF(torch.nn.Module):
    def __init__(self, batch_first: bool):
        super().__init__()
        self.batch_first = batch_first

    def forward(self, emissions, mask):
        if emissions.shape[:2] != mask.shape:
            raise ValueError("the first two dimensions of emissions and mask must match")
        no_empty_seq = not self.batch_first and mask[0].all()
        no_empty_seq_bf = self.batch_first and mask[:, 0].all()
        if not no_empty_seq and not no_empty_seq_bf:
            raise ValueError("mask of the first timestep must all be on")
        return emissions.masked_fill(~mask[..., None], 0.0).sum()
