# settings: unsafe_fixes=true assume_compiled=true data_dependent_lines=26
# call: place_indicators(torch.zeros(4, 2), torch.tensor([1, 5, 1, 7]), [torch.ones(2), torch.full((2,), 3.0)], [1, 9]); place_indicators_either_way(torch.zeros(3, 2), torch.tensor([2, 2, 4]), torch.nn.Embedding(5, 2), [torch.ones(2)], [4])
# Ovis2's visual indicator embeddings, written where their token is: the value is indexed by a
# Python number; the mask is bound on two paths.
import torch


def place_indicators(inputs_embeds: torch.Tensor, input_ids: torch.Tensor, features: list, ids: list) -> torch.Tensor:
    for i, token_id in enumerate(ids):
        mask = input_ids == token_id
        if torch.compiler.is_compiling() or mask.any():
            inputs_embeds[mask] = features[i].to(inputs_embeds.device, inputs_embeds.dtype)
    return inputs_embeds


def place_indicators_either_way(inputs_embeds, input_ids, embed, features, ids):
    # The mask is found from the ids, or from the embeddings where there are none (Ovis2); a run
    # saw Dynamo stop at its test.
    for i, visual_indicator_id in enumerate(ids):
        if input_ids is None:
            mask = inputs_embeds == embed(torch.tensor(visual_indicator_id, dtype=torch.long, device=inputs_embeds.device))
            mask = mask.all(-1)
        else:
            mask = (input_ids == visual_indicator_id).to(inputs_embeds.device)

        if torch.compiler.is_compiling() or mask.any():
            inputs_embeds[mask] = features[i].to(inputs_embeds.device, inputs_embeds.dtype)
    return inputs_embeds
