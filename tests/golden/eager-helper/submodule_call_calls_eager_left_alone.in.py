# settings: site_lines=29 called_lines=29 disabled_call_lines=29
import torch
from torch import nn


@torch.compiler.disable
def sample_patches(mask, count):
    """Patch indices drawn by value (ViLT's patch sampling)."""
    return torch.multinomial(mask.float(), count)


class PatchEmbeddings(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, pixels):
        return self.proj(pixels)


class VisualEmbedding(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.patch_embeddings = PatchEmbeddings(dim)

    def visual_embed(self, pixels, mask):
        """Its patch embedding is the module's work: running it eagerly would move it out of the graph."""
        embedded = self.patch_embeddings(pixels)
        chosen = sample_patches(mask, 4)
        return torch.gather(embedded, 1, chosen[..., None].expand(-1, -1, embedded.shape[-1]))

    def forward(self, pixels, mask):
        return self.visual_embed(pixels, mask)


embed = torch.compile(VisualEmbedding(4))
