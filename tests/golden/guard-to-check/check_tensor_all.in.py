# settings: unsafe_fixes=true
import torch


@torch.compile
def merge(input_ids, image_features, image_token_id):
    special = input_ids == image_token_id
    torch._check_tensor_all(special.sum() * image_features.shape[-1] == image_features.numel())
    torch._check_tensor_all_with(ValueError, special.any(), "no image token")
    torch._check_tensor_all(special.any(), lambda: f"expected image tokens in {input_ids.shape}")
    return special
