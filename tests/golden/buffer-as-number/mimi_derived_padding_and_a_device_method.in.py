# settings: unsafe_fixes=true assume_compiled=true
# Mimi's form: paddings kept as tensor attributes computed from the buffers, and a length helper
# that reads a buffer's device (left reading the buffers; they stay).
import math

import torch
from torch import nn


class MimiConv1d(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, dilation=1):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride, dilation=dilation)
        kernel_size = self.conv.kernel_size[0]
        stride = torch.tensor(self.conv.stride[0], dtype=torch.int64)
        dilation = self.conv.dilation[0]
        kernel_size = torch.tensor((kernel_size - 1) * dilation + 1, dtype=torch.int64)
        self.stride = nn.Buffer(stride, persistent=False)
        self.kernel_size = nn.Buffer(kernel_size, persistent=False)
        self.padding_total = nn.Buffer(kernel_size - stride, persistent=False)

        # Asymmetric padding required for odd strides
        self.padding_right = self.padding_total // 2
        self.padding_left = self.padding_total - self.padding_right

    def _get_extra_padding_for_conv1d(self, hidden_states):
        length = hidden_states.shape[-1]
        n_frames = (length - self.kernel_size + self.padding_total) / self.stride + 1
        n_frames = torch.ceil(n_frames).to(torch.int64) - 1
        ideal_length = n_frames * self.stride + self.kernel_size - self.padding_total
        return ideal_length - length

    def _get_output_length(self, input_length):
        input_length = torch.as_tensor(input_length, device=self.stride.device)
        return (input_length + self.padding_total - self.kernel_size) // self.stride + 1

    def forward(self, hidden_states):
        extra_padding = self._get_extra_padding_for_conv1d(hidden_states)
        hidden_states = nn.functional.pad(hidden_states, (self.padding_left, self.padding_right + extra_padding))
        return self.conv(hidden_states)
