# settings: unsafe_fixes=true
import torch


@torch.compile
def merge(input_ids, image_features, image_token_id):
    special = input_ids == image_token_id
    torch._assert_async(
        torch.all(special.sum() * image_features.shape[-1] == image_features.numel()),
    )
    torch._assert_async(torch.all(special.any()), "no image token")
    torch._assert_async(torch.all(special.any()))
    return special
