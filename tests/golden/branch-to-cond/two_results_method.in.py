# settings: unsafe_fixes=true
import torch


class Gate(torch.nn.Module):
    @torch.compile
    def forward(self, hidden: torch.Tensor, bias):
        if hidden.mean() > self.threshold:
            gate, hidden = torch.sigmoid(hidden), hidden * self.scale
        else:
            hidden = hidden - bias
            gate = torch.zeros_like(hidden)
        return gate * hidden
