# settings: unsafe_fixes=true
# call: attend(torch.ones(2), [[2, 3], [1, 1]], 7)
import torch


@torch.compile
def attend(hidden_states, spatial_shapes_list, sequence_length):
    spatial_shapes = torch.as_tensor(spatial_shapes_list)
    # Ignore copy
    if (spatial_shapes[:, 0] * spatial_shapes[:, 1]).sum() != sequence_length:
        raise ValueError(
            "Make sure to align the spatial shapes with the sequence length of the encoder hidden states"
        )
    return hidden_states * 2
