# settings: unsafe_fixes=true
import torch


def merge(input_ids, image_token_id):
    special = input_ids == image_token_id
    torch._check_tensor_all(special.any())
    return special
