# settings: unsafe_fixes=true
import torch


class Gate(torch.nn.Module):
    @torch.compile
    def forward(self, hidden: torch.Tensor, bias):
        def _gate_if_true(hidden, bias):
            gate, hidden = torch.sigmoid(hidden), hidden * self.scale
            return gate, hidden

        def _gate_if_false(hidden, bias):
            hidden = hidden - bias
            gate = torch.zeros_like(hidden)
            return gate, hidden

        gate, hidden = torch.cond(hidden.mean() > self.threshold, _gate_if_true, _gate_if_false, (hidden, bias))
        return gate * hidden
