# settings: unsafe_fixes=true assume_compiled=true
# call: run(37); run(3); run(64)
import math

import torch
from torch import nn


class PaddedConv1d(nn.Module):
    """Conv1d with asymmetric or causal padding (Encodec's EncodecConv1d, in small)."""

    def __init__(self, kernel_size: int = 7, stride: int = 2, dilation: int = 1, causal: bool = False, pad_mode: str = "reflect"):
        super().__init__()
        self.causal = causal
        self.pad_mode = pad_mode
        self.conv = nn.Conv1d(1, 2, kernel_size, stride, dilation=dilation)

        kernel_size = self.conv.kernel_size[0]
        stride = torch.tensor(self.conv.stride[0], dtype=torch.int64)
        dilation = self.conv.dilation[0]

        # Effective kernel size with dilations.
        kernel_size = torch.tensor((kernel_size - 1) * dilation + 1, dtype=torch.int64)

        self.stride = nn.Buffer(stride, persistent=False)
        self.kernel_size = nn.Buffer(kernel_size, persistent=False)
        self.padding_total = nn.Buffer(kernel_size - stride, persistent=False)

    def _get_extra_padding_for_conv1d(self, hidden_states: torch.Tensor) -> torch.Tensor:
        length = hidden_states.shape[-1]
        n_frames = (length - self.kernel_size + self.padding_total) / self.stride + 1
        n_frames = torch.ceil(n_frames).to(torch.int64) - 1
        ideal_length = n_frames * self.stride + self.kernel_size - self.padding_total

        return ideal_length - length

    @staticmethod
    def _pad1d(hidden_states: torch.Tensor, paddings: tuple[int, int], mode: str = "zero", value: float = 0.0):
        length = hidden_states.shape[-1]
        padding_left, padding_right = paddings
        if mode != "reflect":
            return nn.functional.pad(hidden_states, paddings, mode, value)

        max_pad = max(padding_left, padding_right)
        extra_pad = 0
        if length <= max_pad:
            extra_pad = max_pad - length + 1
            hidden_states = nn.functional.pad(hidden_states, (0, extra_pad))
        padded = nn.functional.pad(hidden_states, paddings, mode, value)
        end = padded.shape[-1] - extra_pad
        return padded[..., :end]

    def forward(self, hidden_states):
        extra_padding = self._get_extra_padding_for_conv1d(hidden_states)

        if self.causal:
            hidden_states = self._pad1d(hidden_states, (self.padding_total, extra_padding), mode=self.pad_mode)
        else:
            padding_right = self.padding_total // 2
            padding_left = self.padding_total - padding_right
            hidden_states = self._pad1d(
                hidden_states, (padding_left, padding_right + extra_padding), mode=self.pad_mode
            )

        return self.conv(hidden_states)


def run(length):
    torch.manual_seed(0)
    x = torch.randn(2, 1, length)
    return PaddedConv1d()(x), PaddedConv1d(causal=True, pad_mode="constant")(x)
