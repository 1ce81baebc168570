# settings: unsafe_fixes=true
# call: positions(torch.ones(2, 4), torch.tensor([4, 3]), 4); shift_right(torch.arange(6).view(2, 3), 0)
import torch


@torch.compile
def positions(input_ids, lengths: torch.Tensor, slen: int):
    # XLM's and Flaubert's input check.
    bs = input_ids.size(0)
    assert lengths.size(0) == bs
    torch._assert_async(lengths.max() <= slen)
    return input_ids * lengths[:, None]


@torch.compile
def shift_right(input_ids: torch.Tensor, start: int):
    # ProphetNet's and UDOP's decoder-input shift.
    shifted_input_ids = input_ids.new_zeros(input_ids.shape)
    shifted_input_ids[..., 1:] = input_ids[..., :-1].clone()
    shifted_input_ids[..., 0] = start
    torch._assert_async(
        torch.all(shifted_input_ids >= 0),
        "Verify that `shifted_input_ids` has only positive values",
    )
    torch._assert_async(torch.logical_not(torch.isnan(shifted_input_ids.float()).any()))
    return shifted_input_ids


@torch.compile
def numbers_left_alone(x, table, limit: int):
    # `table` may be a numpy array: its `.item()` is not a tensor's.
    assert table.max().item() <= limit
    assert limit.item() > 0 if hasattr(limit, "item") else True
    return x
