# settings: unsafe_fixes=true
# call: Model()(torch.ones(1, 20, 2))
import torch


class Encoder(torch.nn.Module):
    @staticmethod
    def reference_points(spatial_shapes):
        points = []
        for height, width in spatial_shapes:
            points.append(torch.linspace(0.5, height - 0.5, height).repeat(width))
        return torch.cat(points)

    def forward(self, hidden, spatial_shapes=None, spatial_shapes_list=None):
        points = self.reference_points(spatial_shapes)
        return hidden.sum() + points.sum() + spatial_shapes.sum()


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()

    @torch.compile
    def forward(self, hidden):
        spatial_shapes_list = [(4, 4), (2, 2)]
        spatial_shapes = torch.as_tensor(spatial_shapes_list)
        return self.encoder(hidden, spatial_shapes=spatial_shapes, spatial_shapes_list=spatial_shapes_list)
