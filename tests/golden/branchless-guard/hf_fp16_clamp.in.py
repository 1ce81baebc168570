# call: layer(torch.tensor([1.0, float("inf"), -70000.0]).half()); layer(torch.tensor([1.0, 65000.0]).half()); layer(torch.ones(2))
import torch


@torch.compile
def layer(hidden_states):
    hidden_states = hidden_states * 2
    if hidden_states.dtype == torch.float16 and (
        torch.isinf(hidden_states).any() or torch.isnan(hidden_states).any()
    ):
        clamp_value = torch.finfo(hidden_states.dtype).max - 1000
        hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
    return hidden_states
