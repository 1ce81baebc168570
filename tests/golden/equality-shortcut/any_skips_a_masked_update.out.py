# settings: unsafe_fixes=true assume_compiled=true
# call: embed(torch.tensor([[1, -1, 2], [0, 3, -2]])); embed(torch.tensor([[1, 2, 3], [0, 3, 2]]))
# tab-transformer's categorical embedding: special tokens (negative ids) get their own embedding,
# selected by the mask; `.any()` only skips the selection when there is none.
import torch

categorical_embeds = torch.nn.Embedding.from_pretrained(torch.arange(20.0).view(5, 4).sin(), freeze=False)
special_token_embed = torch.nn.Embedding.from_pretrained(torch.arange(8.0).view(2, 4).cos(), freeze=False)


def embed(x_categ: torch.Tensor):
    is_special_token = x_categ < 0
    categ_embed = categorical_embeds(x_categ.clamp_min(0))
    if torch.compiler.is_compiling() or is_special_token.any():
        special_token_ids = (x_categ + 1).abs().clamp_max(1)
        special_embed = special_token_embed(special_token_ids)
        categ_embed = torch.where(is_special_token[..., None], special_embed, categ_embed)
    return categ_embed * 2
