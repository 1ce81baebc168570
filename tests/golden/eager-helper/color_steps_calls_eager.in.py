# settings: site_lines=33 called_lines=33 disabled_call_lines=33
import torch
from torch import nn


def adjust_brightness(image, factor):
    return image + factor


def adjust_contrast(image, factor):
    return (image - image.mean(dim=(-2, -1), keepdim=True)) * factor + image.mean(dim=(-2, -1), keepdim=True)


@torch.compiler.disable
def dispatch_color_steps(image, factors, order, steps):
    """The color steps in a random order per call (kornia's `_dispatch_color_steps`)."""
    for index in order.tolist():
        image = steps[index](image, factors[index])
    return image


def clamp_unit_range(image):
    return image.clamp(0.0, 1.0)


class ColorJitter(nn.Module):
    steps = (adjust_brightness, adjust_contrast)

    def apply_transform(self, image, factors, order):
        image = clamp_unit_range(image)
        # Dynamo names the line of the call, inside the statement.
        return clamp_unit_range(
            dispatch_color_steps(image, factors, order, self.steps)
        )

    def forward(self, image, factors, order):
        return self.apply_transform(image, factors, order) * 2


jitter = torch.compile(ColorJitter())
