# settings: unsafe_fixes=true site_lines=14
# A contrastive head scales its logits by a learned temperature read as a number from its
# log-parameter (a CLIP-style loss's form); the logits keep their gradient, the temperature had none.
import torch
from torch import nn


class ContrastiveHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_temperature = nn.Parameter(torch.tensor(0.07).log())

    def forward(self, image, text):
        temperature = self.log_temperature.exp().detach().reshape(())
        logits = image @ text.T
        return logits / temperature


head = torch.compile(ContrastiveHead())
