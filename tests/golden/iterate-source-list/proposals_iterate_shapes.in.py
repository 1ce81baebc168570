# settings: unsafe_fixes=true
# call: Model()(torch.ones(1, 20, 2))
import torch


class Model(torch.nn.Module):
    def proposals(self, output, spatial_shapes):
        pieces = []
        current = 0
        for level, (height, width) in enumerate(spatial_shapes):
            piece = output[:, current : current + height * width].view(1, height, width, 2)
            pieces.append(piece.mean((1, 2)) * (level + 1) + torch.linspace(0, height - 1, height).sum())
            current += height * width
        return torch.stack(pieces, 1)

    @torch.compile
    def forward(self, output):
        spatial_shapes_list = [(4, 4), (2, 2)]
        spatial_shapes = torch.as_tensor(spatial_shapes_list, dtype=torch.long)
        return self.proposals(output, spatial_shapes), spatial_shapes.prod(1)
