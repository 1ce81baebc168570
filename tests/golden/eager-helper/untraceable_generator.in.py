# settings: site_lines=8,13 called_lines=8,13 untraceable_lines=8,13
# A helper that seeds a torch.Generator per call (torchsde's Brownian increments; monai's seeded
# subsample): Dynamo cannot hold the generator in a graph (GB0363), so the helper runs eagerly.
import torch


def _randn(size, dtype, device, seed):
    generator = torch.Generator(device).manual_seed(int(seed))
    return torch.randn(size, dtype=dtype, device=device, generator=generator)


def subsample(source: torch.Tensor, n: int) -> torch.Tensor:
    g = torch.Generator()
    g.manual_seed(42)
    return source[torch.randperm(source.shape[0], generator=g)[:n]]


class Increments(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + _randn(x.shape, x.dtype, x.device, 7) + subsample(x, x.shape[0] - 1).mean()


compiled = torch.compile(Increments())
