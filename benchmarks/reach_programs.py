"""Programs built from the other pure-Python libraries people compile (kornia, torchmetrics,
torch-geometric, diffusers, x-transformers, torchdiffeq, gpytorch, monai, pyro, einops, botorch, and
the fifth and sixth passes' libraries below), for `reach.py`: each is what a
user of the library writes and hands to `torch.compile`, a module or a function, with inputs of
batch 2 from the library's own defaults where it has them, small widths (CPU, 2 cores), no
weights from a hub (every model from its constructor or config).

    .venv-reach/bin/python benchmarks/reach_programs.py list
    .venv-reach/bin/python benchmarks/reach_programs.py probe kornia:canny

A program is named `library:name`; `build_program(name)` returns what the entry's
`my_model_function()` returns, `build_program_inputs(name)` its `GetInput()`. Random draws are
seeded, so the eager and the compiled run see the same inputs.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback
from typing import Any, Callable

import torch

# DeepXDE picks its backend from the environment when imported: its users of torch set this.
os.environ.setdefault("DDE_BACKEND", "pytorch")

# name -> (library module to import, build(): the program); its inputs are `_<build>_inputs()`.
PROGRAMS: dict[str, tuple[str, Callable[[], Any]]] = {}
# The packages a library's code runs in, fixed together (gpytorch builds linear_operator's operators).
PACKAGES = {
    "gpytorch": ("gpytorch", "linear_operator"),
    "botorch": ("botorch", "gpytorch", "linear_operator"),
    # Its local heads are local-attention's LocalAttention (the same draw).
    "linear_attention_transformer": ("linear_attention_transformer", "local_attention"),
    # sbi's density estimators are nflows' and zuko's flows (both in the tuning half) behind its own wrappers.
    "sbi": ("sbi", "nflows", "zuko"),
    # torchcde's cdeint is torchdiffeq's odeint (a tuning library) over the spline's vector field.
    "torchcde": ("torchcde", "torchdiffeq"),
}


def program(name: str, library: str):  # type: ignore[no-untyped-def]
    def register(build):  # type: ignore[no-untyped-def]
        PROGRAMS[name] = (library, build)
        return build

    return register


def _images(channels: int = 3, size: int = 32) -> torch.Tensor:
    torch.manual_seed(0)
    return torch.rand(2, channels, size, size)


# -- kornia: image processing people put in their training and inference steps ----------------


class _KorniaModule(torch.nn.Module):
    """A kornia function as the module a pipeline compiles."""

    def __init__(self, function: Callable[..., Any], **options: Any) -> None:
        super().__init__()
        self.function = function
        self.options = options

    def forward(self, images: torch.Tensor) -> Any:
        return self.function(images, **self.options)


@program("kornia:canny", "kornia")
def kornia_canny():  # type: ignore[no-untyped-def]
    import kornia

    return _KorniaModule(kornia.filters.canny)


_kornia_canny_inputs = _images


@program("kornia:equalize_clahe", "kornia")
def kornia_equalize_clahe():  # type: ignore[no-untyped-def]
    import kornia

    return _KorniaModule(kornia.enhance.equalize_clahe)


_kornia_equalize_clahe_inputs = _images


@program("kornia:rgb_to_hsv", "kornia")
def kornia_rgb_to_hsv():  # type: ignore[no-untyped-def]
    import kornia

    return _KorniaModule(kornia.color.rgb_to_hsv)


_kornia_rgb_to_hsv_inputs = _images


@program("kornia:harris_nms", "kornia")
def kornia_harris_nms():  # type: ignore[no-untyped-def]
    import kornia

    class Corners(torch.nn.Module):
        def forward(self, images: torch.Tensor) -> torch.Tensor:
            gray = kornia.color.rgb_to_grayscale(images)
            response = kornia.feature.harris_response(gray)
            return kornia.geometry.subpix.nms2d(response, (3, 3))

    return Corners()


_kornia_harris_nms_inputs = _images


@program("kornia:sift_descriptor", "kornia")
def kornia_sift_descriptor():  # type: ignore[no-untyped-def]
    import kornia

    return kornia.feature.SIFTDescriptor(32, 8, 4)


def _kornia_sift_descriptor_inputs():  # type: ignore[no-untyped-def]
    return _images(1, 32)


@program("kornia:augmentation", "kornia")
def kornia_augmentation():  # type: ignore[no-untyped-def]
    import kornia.augmentation as K

    torch.manual_seed(0)
    return K.AugmentationSequential(
        K.RandomHorizontalFlip(p=1.0), K.ColorJitter(0.1, 0.1, 0.1, 0.1, p=1.0), K.RandomAffine(degrees=10.0, p=1.0),
        same_on_batch=True,
    )  # fmt: skip


_kornia_augmentation_inputs = _images


# -- torchmetrics: a metric's forward (update and compute on a batch) ---------------------------


def _classes() -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    return torch.randn(16, 5).softmax(-1), torch.randint(0, 5, (16,))


@program("torchmetrics:multiclass_accuracy", "torchmetrics")
def torchmetrics_multiclass_accuracy():  # type: ignore[no-untyped-def]
    from torchmetrics.classification import MulticlassAccuracy

    return MulticlassAccuracy(num_classes=5)


_torchmetrics_multiclass_accuracy_inputs = _classes


@program("torchmetrics:multiclass_f1", "torchmetrics")
def torchmetrics_multiclass_f1():  # type: ignore[no-untyped-def]
    from torchmetrics.classification import MulticlassF1Score

    return MulticlassF1Score(num_classes=5, average="macro")


_torchmetrics_multiclass_f1_inputs = _classes


@program("torchmetrics:binary_auroc", "torchmetrics")
def torchmetrics_binary_auroc():  # type: ignore[no-untyped-def]
    from torchmetrics.classification import BinaryAUROC

    return BinaryAUROC()


def _torchmetrics_binary_auroc_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(16), torch.randint(0, 2, (16,))


@program("torchmetrics:ssim", "torchmetrics")
def torchmetrics_ssim():  # type: ignore[no-untyped-def]
    from torchmetrics.image import StructuralSimilarityIndexMeasure

    return StructuralSimilarityIndexMeasure(data_range=1.0)


def _torchmetrics_ssim_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(2, 3, 32, 32), torch.rand(2, 3, 32, 32)


@program("torchmetrics:psnr", "torchmetrics")
def torchmetrics_psnr():  # type: ignore[no-untyped-def]
    from torchmetrics.image import PeakSignalNoiseRatio

    return PeakSignalNoiseRatio(data_range=1.0)


_torchmetrics_psnr_inputs = _torchmetrics_ssim_inputs


# -- torch-geometric: message passing on a small random graph ----------------------------------


def _graph() -> dict[str, torch.Tensor]:
    torch.manual_seed(0)
    nodes = 12
    edge_index = torch.randint(0, nodes, (2, 40))
    return {"x": torch.randn(nodes, 8), "edge_index": edge_index, "batch": torch.tensor([0] * 6 + [1] * 6)}


def _gnn(conv_class: str, **options: Any):  # type: ignore[no-untyped-def]
    import torch_geometric.nn as gnn

    conv = getattr(gnn, conv_class)

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = conv(8, 16, **options)
            self.conv2 = conv(16 * options.get("heads", 1), 4)

        def forward(self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
            h = self.conv1(x, edge_index).relu()
            h = self.conv2(h, edge_index)
            return gnn.global_mean_pool(h, batch, size=2)

    torch.manual_seed(0)
    return Net()


@program("torch_geometric:gcn", "torch_geometric")
def torch_geometric_gcn():  # type: ignore[no-untyped-def]
    return _gnn("GCNConv")


_torch_geometric_gcn_inputs = _graph


@program("torch_geometric:gat", "torch_geometric")
def torch_geometric_gat():  # type: ignore[no-untyped-def]
    return _gnn("GATConv", heads=2)


_torch_geometric_gat_inputs = _graph


@program("torch_geometric:sage", "torch_geometric")
def torch_geometric_sage():  # type: ignore[no-untyped-def]
    return _gnn("SAGEConv")


_torch_geometric_sage_inputs = _graph


# -- diffusers: models from their configs --------------------------------------------------------


@program("diffusers:unet2d", "diffusers")
def diffusers_unet2d():  # type: ignore[no-untyped-def]
    from diffusers import UNet2DModel

    torch.manual_seed(0)
    return UNet2DModel(
        sample_size=16, in_channels=3, out_channels=3, layers_per_block=1, block_out_channels=(16, 32),
        down_block_types=("DownBlock2D", "AttnDownBlock2D"), up_block_types=("AttnUpBlock2D", "UpBlock2D"),
        norm_num_groups=8,
    )  # fmt: skip


def _diffusers_unet2d_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return {"sample": torch.randn(2, 3, 16, 16), "timestep": torch.tensor([10, 500])}


@program("diffusers:unet2d_condition", "diffusers")
def diffusers_unet2d_condition():  # type: ignore[no-untyped-def]
    from diffusers import UNet2DConditionModel

    torch.manual_seed(0)
    return UNet2DConditionModel(
        sample_size=16, in_channels=4, out_channels=4, layers_per_block=1, block_out_channels=(16, 32),
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
        cross_attention_dim=16, attention_head_dim=4, norm_num_groups=8,
    )  # fmt: skip


def _diffusers_unet2d_condition_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return {"sample": torch.randn(2, 4, 16, 16), "timestep": torch.tensor([10, 500]), "encoder_hidden_states": torch.randn(2, 7, 16)}


@program("diffusers:autoencoder_kl", "diffusers")
def diffusers_autoencoder_kl():  # type: ignore[no-untyped-def]
    from diffusers import AutoencoderKL

    torch.manual_seed(0)
    return AutoencoderKL(
        in_channels=3, out_channels=3, down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"), block_out_channels=(16, 32), latent_channels=4,
        norm_num_groups=8, sample_size=32,
    )  # fmt: skip


def _diffusers_autoencoder_kl_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return {"sample": torch.randn(2, 3, 32, 32), "sample_posterior": False}


@program("diffusers:dit", "diffusers")
def diffusers_dit():  # type: ignore[no-untyped-def]
    from diffusers import DiTTransformer2DModel

    torch.manual_seed(0)
    return DiTTransformer2DModel(
        num_attention_heads=2, attention_head_dim=8, in_channels=4, num_layers=2, sample_size=8, patch_size=2,
        num_embeds_ada_norm=1000, norm_num_groups=8,
    )  # fmt: skip


def _diffusers_dit_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return {"hidden_states": torch.randn(2, 4, 8, 8), "timestep": torch.tensor([10, 500]), "class_labels": torch.tensor([1, 2])}


# The diffusers classes the public survey finds breaking in eval mode (its nightly report of
# 2026-05-03: AutoencoderDC, AutoencoderKLHunyuanImageRefiner, ConsistencyDecoderVAE,
# HiDreamImageTransformer2DModel, Lumina2Transformer2DModel), built as the survey builds them:
# from the diffusers test suite's own config and inputs (batch 2 here); the refiner VAE, which has
# no such config, from its defaults with the widths cut. Chosen from the survey before measuring.


@program("diffusers:autoencoder_dc", "diffusers")
def diffusers_autoencoder_dc():  # type: ignore[no-untyped-def]
    from diffusers import AutoencoderDC

    torch.manual_seed(0)
    return AutoencoderDC(
        in_channels=3, latent_channels=4, attention_head_dim=2, encoder_block_types=("ResBlock", "EfficientViTBlock"),
        decoder_block_types=("ResBlock", "EfficientViTBlock"), encoder_block_out_channels=(8, 8),
        decoder_block_out_channels=(8, 8), encoder_qkv_multiscales=((), (5,)), decoder_qkv_multiscales=((), (5,)),
        encoder_layers_per_block=(1, 1), decoder_layers_per_block=[1, 1], downsample_block_type="conv",
        upsample_block_type="interpolate", decoder_norm_types="rms_norm", decoder_act_fns="silu", scaling_factor=0.41407,
    )  # fmt: skip


def _diffusers_autoencoder_dc_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return {"sample": torch.randn(2, 3, 32, 32)}


@program("diffusers:autoencoder_kl_hunyuanimage_refiner", "diffusers")
def diffusers_autoencoder_kl_hunyuanimage_refiner():  # type: ignore[no-untyped-def]
    from diffusers import AutoencoderKLHunyuanImageRefiner

    torch.manual_seed(0)
    return AutoencoderKLHunyuanImageRefiner(latent_channels=8, block_out_channels=(16, 32, 32, 64, 64), layers_per_block=1)


def _diffusers_autoencoder_kl_hunyuanimage_refiner_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    # (batch, channels, frames, height, width): 1 + 4k frames, as its temporal compression asks.
    return {"sample": torch.randn(2, 3, 5, 32, 32)}


@program("diffusers:consistency_decoder_vae", "diffusers")
def diffusers_consistency_decoder_vae():  # type: ignore[no-untyped-def]
    from diffusers import ConsistencyDecoderVAE

    torch.manual_seed(0)
    return ConsistencyDecoderVAE(
        encoder_block_out_channels=[2, 4], encoder_in_channels=3, encoder_out_channels=4,
        encoder_down_block_types=["DownEncoderBlock2D"] * 2, decoder_add_attention=False, decoder_block_out_channels=[2, 4],
        decoder_down_block_types=["ResnetDownsampleBlock2D"] * 2, decoder_downsample_padding=1, decoder_in_channels=7,
        decoder_layers_per_block=1, decoder_norm_eps=1e-05, decoder_norm_num_groups=2, encoder_norm_num_groups=2,
        decoder_num_train_timesteps=1024, decoder_out_channels=6, decoder_resnet_time_scale_shift="scale_shift",
        decoder_time_embedding_type="learned", decoder_up_block_types=["ResnetUpsampleBlock2D"] * 2, scaling_factor=1,
        latent_channels=4,
    )  # fmt: skip


def _diffusers_consistency_decoder_vae_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return {"sample": torch.randn(2, 3, 32, 32)}


@program("diffusers:hidream_image_transformer", "diffusers")
def diffusers_hidream_image_transformer():  # type: ignore[no-untyped-def]
    from diffusers import HiDreamImageTransformer2DModel

    torch.manual_seed(0)
    return HiDreamImageTransformer2DModel(
        patch_size=2, in_channels=4, out_channels=4, num_layers=1, num_single_layers=1, attention_head_dim=8,
        num_attention_heads=4, caption_channels=[8, 4], text_emb_dim=8, num_routed_experts=2, num_activated_experts=2,
        axes_dims_rope=(4, 2, 2), max_resolution=(32, 32), llama_layers=(0, 1), force_inference_output=True,
    )  # fmt: skip


def _diffusers_hidream_image_transformer_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return {
        "hidden_states": torch.randn(2, 4, 32, 32), "encoder_hidden_states_t5": torch.randn(2, 8, 8),
        "encoder_hidden_states_llama3": torch.randn(2, 2, 8, 4), "pooled_embeds": torch.randn(2, 8),
        "timesteps": torch.randint(0, 1000, (2,)),
    }  # fmt: skip


@program("diffusers:lumina2_transformer", "diffusers")
def diffusers_lumina2_transformer():  # type: ignore[no-untyped-def]
    from diffusers import Lumina2Transformer2DModel

    torch.manual_seed(0)
    return Lumina2Transformer2DModel(
        sample_size=16, patch_size=2, in_channels=4, hidden_size=24, num_layers=2, num_refiner_layers=1,
        num_attention_heads=3, num_kv_heads=1, multiple_of=2, ffn_dim_multiplier=None, norm_eps=1e-5,
        scaling_factor=1.0, axes_dim_rope=(4, 2, 2), axes_lens=(128, 128, 128), cap_feat_dim=32,
    )  # fmt: skip


def _diffusers_lumina2_transformer_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    # Caption padding, as a batch of prompts of different lengths has.
    mask = torch.ones(2, 16, dtype=torch.bool)
    mask[1, -5:] = False
    return {
        "hidden_states": torch.randn(2, 4, 16, 16), "encoder_hidden_states": torch.randn(2, 16, 32),
        "timestep": torch.rand(2), "encoder_attention_mask": mask,
    }  # fmt: skip


# -- x-transformers, torchdiffeq, gpytorch ------------------------------------------------------


@program("x_transformers:decoder", "x_transformers")
def x_transformers_decoder():  # type: ignore[no-untyped-def]
    from x_transformers import Decoder, TransformerWrapper

    torch.manual_seed(0)
    return TransformerWrapper(num_tokens=256, max_seq_len=64, attn_layers=Decoder(dim=64, depth=2, heads=4))


def _x_transformers_decoder_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    mask = torch.ones(2, 24, dtype=torch.bool)
    mask[1, -5:] = False
    return {"x": torch.randint(0, 256, (2, 24)), "mask": mask}


@program("torchdiffeq:odeint_dopri5", "torchdiffeq")
def torchdiffeq_odeint():  # type: ignore[no-untyped-def]
    from torchdiffeq import odeint

    class Dynamics(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4))

        def forward(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return self.net(y)

    class NeuralODE(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.dynamics = Dynamics()

        def forward(self, y0: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            return odeint(self.dynamics, y0, t, method="dopri5", rtol=1e-3, atol=1e-4)

    torch.manual_seed(0)
    return NeuralODE()


def _torchdiffeq_odeint_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 4), torch.linspace(0.0, 1.0, 5)




@program("gpytorch:exact_gp", "gpytorch")
def gpytorch_exact_gp():  # type: ignore[no-untyped-def]
    import gpytorch

    torch.manual_seed(0)
    train_x = torch.linspace(0, 1, 20)
    train_y = torch.sin(train_x * 6.28) + 0.1 * torch.randn(20)

    class ExactGP(gpytorch.models.ExactGP):
        def __init__(self) -> None:
            super().__init__(train_x, train_y, gpytorch.likelihoods.GaussianLikelihood())
            self.mean_module = gpytorch.means.ConstantMean()
            self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

        def forward(self, x: torch.Tensor):  # type: ignore[no-untyped-def]
            return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))

    class Predict(torch.nn.Module):
        """The posterior mean and variance at new points, as a prediction step computes them."""

        def __init__(self) -> None:
            super().__init__()
            self.gp = ExactGP().eval()

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            posterior = self.gp(x)
            return posterior.mean, posterior.variance

    return Predict()


def _gpytorch_exact_gp_inputs():  # type: ignore[no-untyped-def]
    return (torch.linspace(0, 1, 7),)


# -- monai: medical imaging networks and losses, as a training step compiles them ----------------


@program("monai:unet", "monai")
def monai_unet():  # type: ignore[no-untyped-def]
    from monai.networks.nets import UNet

    torch.manual_seed(0)
    return UNet(spatial_dims=2, in_channels=1, out_channels=2, channels=(8, 16, 32), strides=(2, 2), num_res_units=1)


def _monai_unet_inputs():  # type: ignore[no-untyped-def]
    return _images(channels=1)


@program("monai:vit", "monai")
def monai_vit():  # type: ignore[no-untyped-def]
    from monai.networks.nets import ViT

    torch.manual_seed(0)
    return ViT(
        in_channels=1, img_size=(32, 32), patch_size=(8, 8), spatial_dims=2, hidden_size=48, mlp_dim=96,
        num_layers=2, num_heads=4, classification=True, num_classes=3,
    )


def _monai_vit_inputs():  # type: ignore[no-untyped-def]
    return _images(channels=1)


@program("monai:swin_unetr", "monai")
def monai_swin_unetr():  # type: ignore[no-untyped-def]
    from monai.networks.nets import SwinUNETR

    torch.manual_seed(0)
    return SwinUNETR(in_channels=1, out_channels=2, feature_size=12, spatial_dims=2, depths=(1, 1, 1, 1))


def _monai_swin_unetr_inputs():  # type: ignore[no-untyped-def]
    return _images(channels=1, size=64)


@program("monai:dice_ce_loss", "monai")
def monai_dice_ce_loss():  # type: ignore[no-untyped-def]
    from monai.losses import DiceCELoss

    return DiceCELoss(sigmoid=True)


def _monai_dice_ce_loss_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 2, 16, 16), (torch.rand(2, 2, 16, 16) > 0.5).float()


# -- pyro: probabilistic programs, their loss as a training step computes it ------------------------


@program("pyro:regression_elbo", "pyro")
def pyro_regression_elbo():  # type: ignore[no-untyped-def]
    import pyro
    import pyro.distributions as dist
    from pyro.infer import Trace_ELBO
    from pyro.infer.autoguide import AutoNormal
    from pyro.nn import PyroModule, PyroSample

    pyro.set_rng_seed(0)
    pyro.clear_param_store()

    class Regression(PyroModule):
        def __init__(self) -> None:
            super().__init__()
            self.linear = PyroModule[torch.nn.Linear](3, 1)
            self.linear.weight = PyroSample(dist.Normal(0.0, 1.0).expand([1, 3]).to_event(2))
            self.linear.bias = PyroSample(dist.Normal(0.0, 10.0).expand([1]).to_event(1))

        def forward(self, x, y=None):  # type: ignore[no-untyped-def]
            sigma = pyro.sample("sigma", dist.Uniform(0.0, 10.0))
            mean = self.linear(x).squeeze(-1)
            with pyro.plate("data", x.shape[0]):
                pyro.sample("obs", dist.Normal(mean, sigma), obs=y)
            return mean

    regression = Regression()
    guide = AutoNormal(regression)
    elbo = Trace_ELBO()

    class Loss(torch.nn.Module):
        """The ELBO a training step minimises (the guide's parameters are made by a first call)."""

        def __init__(self) -> None:
            super().__init__()
            self.regression, self.guide = regression, guide

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return elbo.differentiable_loss(self.regression, self.guide, x, y)

    loss = Loss()
    x, y = _pyro_regression_elbo_inputs()
    loss(x, y)
    return loss


def _pyro_regression_elbo_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    x = torch.randn(8, 3)
    return x, x @ torch.tensor([1.0, -2.0, 0.5]) + 0.1 * torch.randn(8)


@program("pyro:log_prob", "pyro")
def pyro_log_prob():  # type: ignore[no-untyped-def]
    import pyro.distributions as dist

    class LogProb(torch.nn.Module):
        """The log density of observations under a few of the library's distributions."""

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            normal = dist.Normal(torch.zeros(4), torch.ones(4)).to_event(1).log_prob(x)
            mixture = dist.MixtureSameFamily(dist.Categorical(logits=torch.zeros(3)), dist.Normal(torch.arange(3.0), 1.0))
            student = dist.StudentT(3.0, 0.0, 1.0).log_prob(x).sum(-1)
            return normal + mixture.log_prob(x).sum(-1) + student

    return LogProb()


def _pyro_log_prob_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(2, 4),)


# -- einops: tensor rearrangement inside a model --------------------------------------------------


@program("einops:attention", "einops")
def einops_attention():  # type: ignore[no-untyped-def]
    from einops import rearrange, reduce
    from einops.layers.torch import Rearrange

    class PatchAttention(torch.nn.Module):
        def __init__(self, dim: int = 32, heads: int = 4) -> None:
            super().__init__()
            self.heads = heads
            self.to_patches = Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=8, p2=8)
            self.embed = torch.nn.Linear(3 * 64, dim)
            self.qkv = torch.nn.Linear(dim, dim * 3)

        def forward(self, images: torch.Tensor) -> torch.Tensor:
            tokens = self.embed(self.to_patches(images))
            q, k, v = (rearrange(t, "b n (h d) -> b h n d", h=self.heads) for t in self.qkv(tokens).chunk(3, dim=-1))
            out = torch.nn.functional.scaled_dot_product_attention(q, k, v)
            return reduce(rearrange(out, "b h n d -> b n (h d)"), "b n d -> b d", "mean")

    torch.manual_seed(0)
    return PatchAttention()


def _einops_attention_inputs():  # type: ignore[no-untyped-def]
    return _images()


# -- botorch: Bayesian optimisation, a model's posterior at candidate points -------------------------


@program("botorch:single_task_gp", "botorch")
def botorch_single_task_gp():  # type: ignore[no-untyped-def]
    from botorch.models import SingleTaskGP

    torch.manual_seed(0)
    train_x = torch.rand(12, 2, dtype=torch.float64)
    train_y = (train_x.sin().sum(-1, keepdim=True)) + 0.05 * torch.randn(12, 1, dtype=torch.float64)

    class Posterior(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = SingleTaskGP(train_x, train_y).eval()

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            posterior = self.model.posterior(x)
            return posterior.mean, posterior.variance

    return Posterior()


def _botorch_single_task_gp_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(1)
    return (torch.rand(5, 2, dtype=torch.float64),)


# -- The fifth pass's libraries, chosen before any was measured: the pure-Python libraries people
# compile models and steps from that build without weights or data, one program each in the form
# their documentation shows (both halves by the hash, as every library).


# -- torchsde: a neural SDE integrated as a training step calls it -----------------------------------


@program("torchsde:sdeint_euler", "torchsde")
def torchsde_sdeint():  # type: ignore[no-untyped-def]
    import torchsde

    class Coefficients(torch.nn.Module):
        noise_type = "diagonal"
        sde_type = "ito"

        def __init__(self) -> None:
            super().__init__()
            self.drift = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4))
            self.diffusion = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4), torch.nn.Sigmoid())

        def f(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return self.drift(y)

        def g(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return self.diffusion(y)

    class NeuralSDE(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.sde = Coefficients()

        def forward(self, y0: torch.Tensor, ts: torch.Tensor) -> torch.Tensor:
            # A fixed Brownian motion (its seed given), so every call samples the same path.
            brownian = torchsde.BrownianInterval(t0=ts[0], t1=ts[-1], size=y0.shape, entropy=0)
            return torchsde.sdeint(self.sde, y0, ts, bm=brownian, method="euler", dt=0.05)

    torch.manual_seed(0)
    return NeuralSDE()


def _torchsde_sdeint_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 4), torch.linspace(0.0, 1.0, 5)


# -- e3nn: an equivariant point-cloud layer (spherical harmonics, tensor product, gate) --------------


@program("e3nn:tensor_product_gate", "e3nn")
def e3nn_tensor_product_gate():  # type: ignore[no-untyped-def]
    from e3nn import nn as e3nn_nn
    from e3nn import o3

    class EquivariantLayer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.irreps_in = o3.Irreps("4x0e + 2x1o")
            self.irreps_sh = o3.Irreps.spherical_harmonics(2)
            self.gate = e3nn_nn.Gate("4x0e", [torch.tanh], "2x0e", [torch.sigmoid], "2x1o")
            self.tensor_product = o3.FullyConnectedTensorProduct(self.irreps_in, self.irreps_sh, self.gate.irreps_in)
            self.linear = o3.Linear(self.gate.irreps_out, "2x0e + 1x1o")

        def forward(self, features: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
            edges = positions[:, None, :] - positions[None, :, :]
            harmonics = o3.spherical_harmonics(self.irreps_sh, edges, normalize=True, normalization="component")
            messages = self.tensor_product(features[None, :, :].expand(len(positions), -1, -1), harmonics)
            return self.linear(self.gate(messages.mean(dim=1)))

    torch.manual_seed(0)
    return EquivariantLayer()


def _e3nn_tensor_product_gate_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(6, 10), torch.randn(6, 3)


# -- normflows: a RealNVP flow's log-density, as its training loss computes it -------------------


@program("normflows:real_nvp_log_prob", "normflows")
def normflows_real_nvp():  # type: ignore[no-untyped-def]
    import normflows

    torch.manual_seed(0)
    flows = []
    for _ in range(4):
        flows.append(normflows.flows.AffineCouplingBlock(normflows.nets.MLP([2, 16, 16, 4], init_zeros=True)))
        flows.append(normflows.flows.Permute(4, mode="swap"))

    class LogDensity(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.flow = normflows.NormalizingFlow(normflows.distributions.DiagGaussian(4), flows)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.flow.log_prob(x)

    return LogDensity()


def _normflows_real_nvp_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(8, 4),)


# -- einx: attention written in einx's notation ------------------------------------------------------


@program("einx:attention", "einx")
def einx_attention():  # type: ignore[no-untyped-def]
    import einx

    class Attention(torch.nn.Module):
        def __init__(self, dim: int = 16, heads: int = 2) -> None:
            super().__init__()
            self.heads = heads
            self.qkv = torch.nn.Linear(dim, 3 * dim)
            self.out = torch.nn.Linear(dim, dim)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            q, k, v = self.qkv(x).chunk(3, dim=-1)
            scores = einx.dot("b q (h c), b k (h c) -> b q k h", q, k, h=self.heads) / 8**0.5
            weights = einx.softmax("b q [k] h", scores)
            return self.out(einx.dot("b q k h, b k (h c) -> b q (h c)", weights, v))

    torch.manual_seed(0)
    return Attention()


def _einx_attention_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(2, 6, 16),)


# -- zuko: a conditional neural spline flow's log-density ---------------------------------------------


@program("zuko:nsf_log_prob", "zuko")
def zuko_nsf():  # type: ignore[no-untyped-def]
    import zuko

    class LogDensity(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.flow = zuko.flows.NSF(features=3, context=2, transforms=2, hidden_features=[16, 16])

        def forward(self, x: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
            return self.flow(context).log_prob(x)

    torch.manual_seed(0)
    return LogDensity()


def _zuko_nsf_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(8, 3), torch.randn(8, 2)


# -- nflows: a masked autoregressive flow's log-density -------------------------------------------------


@program("nflows:maf_log_prob", "nflows")
def nflows_maf():  # type: ignore[no-untyped-def]
    from nflows.flows import MaskedAutoregressiveFlow

    class LogDensity(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.flow = MaskedAutoregressiveFlow(features=3, hidden_features=16, num_layers=2, num_blocks_per_layer=1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.flow.log_prob(x)

    torch.manual_seed(0)
    return LogDensity()


def _nflows_maf_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(8, 3),)


# -- vector-quantize-pytorch: a VQ layer as an autoencoder's bottleneck calls it ------------------------


@program("vector_quantize_pytorch:vector_quantize", "vector_quantize_pytorch")
def vector_quantize():  # type: ignore[no-untyped-def]
    from vector_quantize_pytorch import VectorQuantize

    torch.manual_seed(0)
    return VectorQuantize(dim=16, codebook_size=32, decay=0.8, commitment_weight=1.0)


def _vector_quantize_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(2, 12, 16),)


# -- rotary-embedding-torch: rotary positions in an attention block ----------------------------------


@program("rotary_embedding_torch:attention", "rotary_embedding_torch")
def rotary_attention():  # type: ignore[no-untyped-def]
    from rotary_embedding_torch import RotaryEmbedding

    class Attention(torch.nn.Module):
        def __init__(self, dim: int = 16, heads: int = 2) -> None:
            super().__init__()
            self.heads = heads
            self.qkv = torch.nn.Linear(dim, 3 * dim)
            self.rotary = RotaryEmbedding(dim=dim // heads)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            q, k, v = (t.unflatten(-1, (self.heads, -1)).transpose(1, 2) for t in self.qkv(x).chunk(3, dim=-1))
            q, k = self.rotary.rotate_queries_or_keys(q), self.rotary.rotate_queries_or_keys(k)
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)

    torch.manual_seed(0)
    return Attention()


def _rotary_attention_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(2, 6, 16),)


# -- geomloss: a Sinkhorn divergence between point clouds, as a loss -----------------------------------


@program("geomloss:sinkhorn", "geomloss")
def geomloss_sinkhorn():  # type: ignore[no-untyped-def]
    from geomloss import SamplesLoss

    return SamplesLoss("sinkhorn", p=2, blur=0.05, backend="tensorized")


def _geomloss_sinkhorn_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(2, 10, 3), torch.rand(2, 12, 3)


# -- The sixth pass's libraries, chosen before any was measured, by the fifth pass's rule: pure-Python
# PyTorch libraries whose documented use builds a module, a loss or a function that people compile,
# that install on CPU beside torch 2.13 and build without weights or data, and that do not run a
# library already in the census (torchcde, whose solvers are torchdiffeq's and torchsde's, is left
# out for that). One program each, in the form their documentation shows; the hash gives the half.


# -- torchode: a batched ODE solve, the solver compiled as its documentation shows -----------------


@program("torchode:dopri5_solve", "torchode")
def torchode_dopri5():  # type: ignore[no-untyped-def]
    import torchode

    class VectorField(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))

        def forward(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return self.net(y)

    class Solve(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.field = VectorField()
            term = torchode.ODETerm(self.field)
            step_method = torchode.Dopri5(term=term)
            controller = torchode.IntegralController(atol=1e-6, rtol=1e-3, term=term)
            self.solver = torchode.AutoDiffAdjoint(step_method, controller)

        def forward(self, y0: torch.Tensor, t_eval: torch.Tensor) -> torch.Tensor:
            return self.solver.solve(torchode.InitialValueProblem(y0=y0, t_eval=t_eval)).ys

    torch.manual_seed(0)
    return Solve()


def _torchode_dopri5_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 3), torch.linspace(0.0, 1.0, 5).repeat(2, 1)


# -- entmax: sparse attention weights (entmax 1.5) ------------------------------------------------------


@program("entmax:entmax15_attention", "entmax")
def entmax_attention():  # type: ignore[no-untyped-def]
    from entmax import entmax15

    class Attention(torch.nn.Module):
        def __init__(self, dim: int = 16) -> None:
            super().__init__()
            self.qkv = torch.nn.Linear(dim, 3 * dim)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            q, k, v = self.qkv(x).chunk(3, dim=-1)
            weights = entmax15(q @ k.transpose(-1, -2) / 4.0, dim=-1)
            return weights @ v

    torch.manual_seed(0)
    return Attention()


def _entmax_attention_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(2, 6, 16),)


# -- roma: a rotation head (9 numbers -> the nearest rotation -> a unit quaternion) ---------------------


@program("roma:procrustes_head", "roma")
def roma_procrustes_head():  # type: ignore[no-untyped-def]
    import roma

    class RotationHead(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(8, 9)

        def forward(self, features: torch.Tensor) -> torch.Tensor:
            rotation = roma.special_procrustes(self.linear(features).unflatten(-1, (3, 3)))
            return roma.rotmat_to_unitquat(rotation)

    torch.manual_seed(0)
    return RotationHead()


def _roma_procrustes_head_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(2, 8),)


# -- pypose: a pose as a Lie algebra vector, exponentiated and applied to points -----------------------


@program("pypose:se3_transform", "pypose")
def pypose_se3_transform():  # type: ignore[no-untyped-def]
    import pypose

    class Transform(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.pose = torch.nn.Linear(8, 6)

        def forward(self, features: torch.Tensor, points: torch.Tensor) -> torch.Tensor:
            transform = pypose.se3(self.pose(features)).Exp()
            return transform.unsqueeze(-2).Act(points)

    torch.manual_seed(0)
    return Transform()


def _pypose_se3_transform_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 8), torch.randn(2, 5, 3)


# -- geoopt: hyperbolic embeddings on a Poincare ball, distances to learned points ----------------------


@program("geoopt:poincare_distance", "geoopt")
def geoopt_poincare_distance():  # type: ignore[no-untyped-def]
    import geoopt

    class Distances(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ball = geoopt.PoincareBall()
            self.encoder = torch.nn.Linear(8, 4)
            self.prototypes = geoopt.ManifoldParameter(self.ball.expmap0(torch.randn(3, 4) * 0.1), manifold=self.ball)

        def forward(self, features: torch.Tensor) -> torch.Tensor:
            points = self.ball.expmap0(self.encoder(features))
            return self.ball.dist(points[:, None, :], self.prototypes[None, :, :])

    torch.manual_seed(0)
    return Distances()


def _geoopt_poincare_distance_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(2, 8),)


# -- ptwt: wavelet denoising (decompose, soft-threshold the details, reconstruct) ------------------------


@program("ptwt:wavelet_denoise", "ptwt")
def ptwt_wavelet_denoise():  # type: ignore[no-untyped-def]
    import ptwt

    class Denoise(torch.nn.Module):
        def forward(self, signal: torch.Tensor) -> torch.Tensor:
            approximation, *details = ptwt.wavedec(signal, "haar", mode="zero", level=2)
            details = [torch.nn.functional.softshrink(d, 0.1) for d in details]
            return ptwt.waverec([approximation, *details], "haar")

    return Denoise()


def _ptwt_wavelet_denoise_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(2, 64),)


# -- julius: resampling audio by a fraction, as a module -----------------------------------------------


@program("julius:resample_frac", "julius")
def julius_resample_frac():  # type: ignore[no-untyped-def]
    import julius

    return julius.ResampleFrac(4, 5)


def _julius_resample_frac_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(2, 1, 256),)


# -- auraloss: a multi-resolution STFT loss, as an audio model's training loss -------------------------


@program("auraloss:multi_resolution_stft", "auraloss")
def auraloss_multi_resolution_stft():  # type: ignore[no-untyped-def]
    import auraloss

    return auraloss.freq.MultiResolutionSTFTLoss(fft_sizes=[64, 128], hop_sizes=[16, 32], win_lengths=[64, 128])


def _auraloss_multi_resolution_stft_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 1, 512), torch.randn(2, 1, 512)


# -- ncps: a closed-form continuous-time (CfC) network wired as a neural circuit policy ---------------


@program("ncps:cfc_policy", "ncps")
def ncps_cfc_policy():  # type: ignore[no-untyped-def]
    from ncps.torch import CfC
    from ncps.wirings import AutoNCP

    torch.manual_seed(0)

    class Policy(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.cfc = CfC(6, AutoNCP(12, 2), batch_first=True)

        def forward(self, sequence: torch.Tensor) -> torch.Tensor:
            return self.cfc(sequence)[0]

    return Policy()


def _ncps_cfc_policy_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(2, 7, 6),)


# -- torchquad: a definite integral of a parametrised integrand (Simpson's rule) -----------------------


@program("torchquad:simpson", "torchquad")
def torchquad_simpson():  # type: ignore[no-untyped-def]
    import torchquad

    class Integral(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.integrator = torchquad.Simpson()

        def forward(self, frequencies: torch.Tensor) -> torch.Tensor:
            def integrand(points: torch.Tensor) -> torch.Tensor:
                return torch.sin(points @ frequencies)

            domain = torch.tensor([[0.0, 1.0], [0.0, 1.0]])
            return self.integrator.integrate(integrand, dim=2, N=101, integration_domain=domain, backend="torch")

    return Integral()


def _torchquad_simpson_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(2),)


# -- pytorch-metric-learning: a triplet loss on the pairs a miner picks ----------------------------------


@program("pytorch_metric_learning:mined_triplet_loss", "pytorch_metric_learning")
def metric_learning_triplet():  # type: ignore[no-untyped-def]
    from pytorch_metric_learning import losses, miners

    class MinedTripletLoss(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.miner = miners.MultiSimilarityMiner(epsilon=0.1)
            self.loss = losses.TripletMarginLoss(margin=0.1)

        def forward(self, embeddings: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
            return self.loss(embeddings, labels, self.miner(embeddings, labels))

    return MinedTripletLoss()


def _metric_learning_triplet_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(8, 16), torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])


# -- mambapy: a Mamba stack in pure PyTorch (selective scan) --------------------------------------------


@program("mambapy:mamba", "mambapy")
def mambapy_mamba():  # type: ignore[no-untyped-def]
    from mambapy.mamba import Mamba, MambaConfig

    torch.manual_seed(0)
    return Mamba(MambaConfig(d_model=16, n_layers=2, d_state=4))


def _mambapy_mamba_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(2, 8, 16),)


# -- torchkbnufft: a non-uniform FFT of an image at k-space points (MRI) ------------------------------


@program("torchkbnufft:kbnufft", "torchkbnufft")
def torchkbnufft_kbnufft():  # type: ignore[no-untyped-def]
    import torchkbnufft

    return torchkbnufft.KbNufft(im_size=(8, 8))


def _torchkbnufft_kbnufft_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    image = torch.randn(2, 1, 8, 8, dtype=torch.complex64)
    return image, (torch.rand(2, 2, 20) * 2 - 1) * torch.pi


# -- pytorch-tabnet: TabNet's network (sequential attention with sparsemax masks) ----------------------


@program("pytorch_tabnet:tabnet", "pytorch_tabnet")
def tabnet():  # type: ignore[no-untyped-def]
    from pytorch_tabnet.tab_network import TabNet
    from pytorch_tabnet.utils import create_group_matrix

    torch.manual_seed(0)
    groups = create_group_matrix([], 8)  # every feature its own group, as TabModel builds it
    return TabNet(input_dim=8, output_dim=2, n_d=8, n_a=8, n_steps=3, virtual_batch_size=4, group_attention_matrix=groups)


def _tabnet_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(8, 8),)


# -- asteroid-filterbanks: an STFT encoder, a mask, the matching decoder (source separation) -----------


@program("asteroid_filterbanks:stft_mask", "asteroid_filterbanks")
def asteroid_stft_mask():  # type: ignore[no-untyped-def]
    from asteroid_filterbanks import make_enc_dec

    class MaskSeparation(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder, self.decoder = make_enc_dec("stft", n_filters=64, kernel_size=64, stride=16)
            self.mask = torch.nn.Conv1d(self.encoder.n_feats_out, self.encoder.n_feats_out, 1)

        def forward(self, waveform: torch.Tensor) -> torch.Tensor:
            spectrum = self.encoder(waveform)
            return self.decoder(spectrum * torch.sigmoid(self.mask(spectrum)))

    torch.manual_seed(0)
    return MaskSeparation()


def _asteroid_stft_mask_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(2, 1, 512),)


# -- nnAudio: a mel spectrogram computed on the fly in a model's front end ------------------------------


@program("nnAudio:mel_spectrogram", "nnAudio")
def nnaudio_mel_spectrogram():  # type: ignore[no-untyped-def]
    from nnAudio.features import MelSpectrogram

    return MelSpectrogram(sr=8000, n_fft=256, n_mels=32, hop_length=64, verbose=False)


def _nnaudio_mel_spectrogram_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return (torch.randn(2, 1024),)


# -- pytorch-msssim: SSIM as an image loss module ---------------------------------------------------------


@program("pytorch_msssim:ssim", "pytorch_msssim")
def pytorch_msssim_ssim():  # type: ignore[no-untyped-def]
    from pytorch_msssim import SSIM

    return SSIM(data_range=1.0, channel=3)


def _pytorch_msssim_ssim_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(2, 3, 32, 32), torch.rand(2, 3, 32, 32)


# -- the entry and the command line ---------------------------------------------------------------


# -- the held-out half drawn on 2026-11-27 (reach.py HELD_OUT_LIBRARIES): written before any was
# measured, as a user of each library builds what it compiles; nothing here is tuned on.


@program("timm:vit_tiny", "timm")
def timm_vit_tiny():  # type: ignore[no-untyped-def]
    import timm

    torch.manual_seed(0)
    return timm.create_model("vit_tiny_patch16_224", pretrained=False, img_size=32, patch_size=8, num_classes=10)


_timm_vit_tiny_inputs = _images


@program("timm:convnext_atto", "timm")
def timm_convnext_atto():  # type: ignore[no-untyped-def]
    import timm

    torch.manual_seed(0)
    return timm.create_model("convnext_atto", pretrained=False, num_classes=10)


_timm_convnext_atto_inputs = _images


@program("vit_pytorch:vit", "vit_pytorch")
def vit_pytorch_vit():  # type: ignore[no-untyped-def]
    from vit_pytorch import ViT

    torch.manual_seed(0)
    return ViT(image_size=32, patch_size=8, num_classes=10, dim=64, depth=2, heads=4, mlp_dim=128)


_vit_pytorch_vit_inputs = _images


@program("vit_pytorch:cait", "vit_pytorch")
def vit_pytorch_cait():  # type: ignore[no-untyped-def]
    from vit_pytorch.cait import CaiT

    torch.manual_seed(0)
    return CaiT(image_size=32, patch_size=8, num_classes=10, dim=64, depth=2, cls_depth=1, heads=4, mlp_dim=128, layer_dropout=0.05)


_vit_pytorch_cait_inputs = _images


class _FlowLoss(torch.nn.Module):
    """sbi's neural posterior estimation: the density estimator's loss on (parameters, data) pairs,
    what every training step of `NPE.train` computes."""

    def __init__(self, model: str) -> None:
        super().__init__()
        from sbi.neural_nets import posterior_nn

        torch.manual_seed(0)
        theta, data = _sbi_pairs()
        self.estimator = posterior_nn(model=model, hidden_features=16, num_transforms=2)(theta, data)

    def forward(self, theta: torch.Tensor, data: torch.Tensor) -> torch.Tensor:
        return self.estimator.loss(theta, data).mean()


def _sbi_pairs() -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    return torch.rand(8, 2), torch.rand(8, 3)


@program("sbi:maf_loss", "sbi")
def sbi_maf_loss():  # type: ignore[no-untyped-def]
    return _FlowLoss("maf")


@program("sbi:zuko_nsf_loss", "sbi")
def sbi_zuko_nsf_loss():  # type: ignore[no-untyped-def]
    return _FlowLoss("zuko_nsf")


_sbi_maf_loss_inputs = _sbi_pairs
_sbi_zuko_nsf_loss_inputs = _sbi_pairs


@program("segmentation_models_pytorch:unet", "segmentation_models_pytorch")
def segmentation_models_pytorch_unet():  # type: ignore[no-untyped-def]
    import segmentation_models_pytorch as smp

    torch.manual_seed(0)
    return smp.Unet("resnet18", encoder_weights=None, classes=2)


@program("segmentation_models_pytorch:deeplabv3plus", "segmentation_models_pytorch")
def segmentation_models_pytorch_deeplabv3plus():  # type: ignore[no-untyped-def]
    import segmentation_models_pytorch as smp

    torch.manual_seed(0)
    return smp.DeepLabV3Plus("resnet18", encoder_weights=None, classes=2)


def _segmentation_images():  # type: ignore[no-untyped-def]
    return _images(size=64)


_segmentation_models_pytorch_unet_inputs = _segmentation_images
_segmentation_models_pytorch_deeplabv3plus_inputs = _segmentation_images


@program("speechbrain:ecapa_tdnn", "speechbrain")
def speechbrain_ecapa_tdnn():  # type: ignore[no-untyped-def]
    from speechbrain.lobes.models.ECAPA_TDNN import ECAPA_TDNN

    torch.manual_seed(0)
    return ECAPA_TDNN(80, lin_neurons=32, channels=[64, 64, 64, 64, 192])


def _speechbrain_ecapa_tdnn_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(2, 50, 80)


@program("speechbrain:fbank", "speechbrain")
def speechbrain_fbank():  # type: ignore[no-untyped-def]
    from speechbrain.lobes.features import Fbank

    return Fbank(n_mels=40)


def _speechbrain_fbank_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 1600)


@program("stable_baselines3:actor_critic", "stable_baselines3")
def stable_baselines3_actor_critic():  # type: ignore[no-untyped-def]
    from gymnasium import spaces
    from stable_baselines3.common.policies import ActorCriticPolicy

    torch.manual_seed(0)
    observation = spaces.Box(low=-1.0, high=1.0, shape=(8,))
    return ActorCriticPolicy(observation, spaces.Discrete(4), lr_schedule=lambda _: 3e-4, net_arch=[32, 32])


def _stable_baselines3_actor_critic_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(2, 8) * 2 - 1


@program("deepxde:fnn", "deepxde")
def deepxde_fnn():  # type: ignore[no-untyped-def]
    import deepxde

    torch.manual_seed(0)
    return deepxde.nn.FNN([2] + [32] * 3 + [1], "tanh", "Glorot normal")


def _deepxde_fnn_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(16, 2)


class _PoissonResidual(torch.nn.Module):
    """DeepXDE's physics-informed loss: the network and the residual of -u'' = f at collocation
    points, with derivatives from its own `deepxde.grad`, as a PDE's training step computes it."""

    def __init__(self) -> None:
        super().__init__()
        import deepxde

        torch.manual_seed(0)
        self.net = deepxde.nn.FNN([1] + [32] * 2 + [1], "tanh", "Glorot normal")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        import deepxde

        with torch.enable_grad():
            x = x.detach().requires_grad_(True)
            u = self.net(x)
            u_xx = deepxde.grad.hessian(u, x)
            residual = -u_xx - torch.pi**2 * torch.sin(torch.pi * x)
            deepxde.grad.clear()
        return residual.pow(2).mean()


@program("deepxde:poisson_residual", "deepxde")
def deepxde_poisson_residual():  # type: ignore[no-untyped-def]
    return _PoissonResidual()


def _deepxde_poisson_residual_inputs():  # type: ignore[no-untyped-def]
    return torch.linspace(-1, 1, 16).unsqueeze(-1)


class _EvaluateActions(torch.nn.Module):
    """Stable-Baselines3's PPO update: the policy's values, log-probabilities and entropy of the
    actions taken, computed for every minibatch of a training step."""

    def __init__(self, policy: Any) -> None:
        super().__init__()
        self.policy = policy

    def forward(self, observations: torch.Tensor, actions: torch.Tensor) -> Any:
        values, log_prob, entropy = self.policy.evaluate_actions(observations, actions)
        return values, log_prob, entropy


@program("stable_baselines3:evaluate_actions", "stable_baselines3")
def stable_baselines3_evaluate_actions():  # type: ignore[no-untyped-def]
    return _EvaluateActions(stable_baselines3_actor_critic())


def _stable_baselines3_evaluate_actions_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(2, 8) * 2 - 1, torch.tensor([1, 3])


class _KgeScores(torch.nn.Module):
    """A knowledge-graph embedding model scoring (head, relation, tail) triples, as training does."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.model = model

    def forward(self, hrt: torch.Tensor) -> torch.Tensor:
        return self.model.score_hrt(hrt)


def _kge(model_class: str) -> Any:
    import numpy as np
    from pykeen import models
    from pykeen.triples import TriplesFactory

    torch.manual_seed(0)
    triples = np.array([[f"e{i}", f"r{i % 3}", f"e{(i * 7 + 1) % 10}"] for i in range(20)], dtype=str)
    factory = TriplesFactory.from_labeled_triples(triples)
    return _KgeScores(getattr(models, model_class)(triples_factory=factory, embedding_dim=16, random_seed=0))


@program("pykeen:transe", "pykeen")
def pykeen_transe():  # type: ignore[no-untyped-def]
    return _kge("TransE")


@program("pykeen:rotate", "pykeen")
def pykeen_rotate():  # type: ignore[no-untyped-def]
    return _kge("RotatE")


def _pykeen_transe_inputs():  # type: ignore[no-untyped-def]
    return torch.tensor([[0, 0, 1], [2, 1, 3]])


_pykeen_rotate_inputs = _pykeen_transe_inputs


# -- the held-out half drawn second on 2026-11-27 (reach.py HELD_OUT_LIBRARIES): the rest of the
# pool, which the census never ran; written before any was measured, as a user of each library
# builds what it compiles; nothing here is tuned on. They import torchvision or need torch's
# default build's wheels, so they run with `--python .venv-214/bin/python`.


@program("torchvision:efficientnet_b0", "torchvision")
def torchvision_efficientnet_b0():  # type: ignore[no-untyped-def]
    from torchvision.models import efficientnet_b0

    torch.manual_seed(0)
    return efficientnet_b0(num_classes=10)


@program("torchvision:swin_t", "torchvision")
def torchvision_swin_t():  # type: ignore[no-untyped-def]
    from torchvision.models import swin_t

    torch.manual_seed(0)
    return swin_t(num_classes=10)


_torchvision_efficientnet_b0_inputs = _images
_torchvision_swin_t_inputs = _images


def _clip(vision: dict[str, Any]) -> Any:
    from open_clip.model import CLIP

    torch.manual_seed(0)
    text = {"context_length": 16, "vocab_size": 1000, "width": 64, "heads": 4, "layers": 2}
    return CLIP(embed_dim=32, vision_cfg=vision, text_cfg=text)


def _clip_inputs() -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    return torch.rand(2, 3, 32, 32), torch.randint(1, 1000, (2, 16))


class _ClipLoss(torch.nn.Module):
    """open_clip's contrastive training step: the model's features and logit scale into ClipLoss."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        from open_clip.loss import ClipLoss

        self.model = model
        self.loss = ClipLoss()

    def forward(self, images: torch.Tensor, texts: torch.Tensor) -> torch.Tensor:
        image_features, text_features, logit_scale = self.model(images, texts)
        return self.loss(image_features, text_features, logit_scale)


@program("open_clip:clip_vit", "open_clip")
def open_clip_clip_vit():  # type: ignore[no-untyped-def]
    return _clip({"layers": 2, "width": 64, "head_width": 16, "patch_size": 8, "image_size": 32})


@program("open_clip:resnet_clip_loss", "open_clip")
def open_clip_resnet_clip_loss():  # type: ignore[no-untyped-def]
    return _ClipLoss(_clip({"layers": (1, 1, 1, 1), "width": 16, "head_width": 16, "image_size": 32}))


_open_clip_clip_vit_inputs = _clip_inputs
_open_clip_resnet_clip_loss_inputs = _clip_inputs


@program("denoising_diffusion_pytorch:gaussian_diffusion", "denoising_diffusion_pytorch")
def denoising_diffusion_pytorch_gaussian_diffusion():  # type: ignore[no-untyped-def]
    from denoising_diffusion_pytorch import GaussianDiffusion, Unet

    torch.manual_seed(0)
    return GaussianDiffusion(Unet(dim=16, dim_mults=(1, 2)), image_size=32, timesteps=100)


@program("denoising_diffusion_pytorch:elucidated_diffusion", "denoising_diffusion_pytorch")
def denoising_diffusion_pytorch_elucidated_diffusion():  # type: ignore[no-untyped-def]
    from denoising_diffusion_pytorch import ElucidatedDiffusion, Unet

    torch.manual_seed(0)
    # Its denoiser must take continuous noise levels: a Unet with learned sinusoidal conditioning.
    return ElucidatedDiffusion(Unet(dim=16, dim_mults=(1, 2), learned_sinusoidal_cond=True), image_size=32, num_sample_steps=8)


_denoising_diffusion_pytorch_gaussian_diffusion_inputs = _images
_denoising_diffusion_pytorch_elucidated_diffusion_inputs = _images


class _NeuralCde(torch.nn.Module):
    """torchcde's neural CDE classifier, as its README writes it: a spline of the series'
    coefficients, integrated by cdeint with the vector field a module of the model's own."""

    def __init__(self, interpolation: str, method: str) -> None:
        super().__init__()
        torch.manual_seed(0)
        channels, hidden = 3, 8
        self.interpolation, self.method = interpolation, method
        self.initial = torch.nn.Linear(channels, hidden)
        self.field = _CdeField(hidden, channels)
        self.readout = torch.nn.Linear(hidden, 2)

    def forward(self, coefficients: torch.Tensor) -> torch.Tensor:
        import torchcde

        series = torchcde.CubicSpline(coefficients) if self.interpolation == "cubic" else torchcde.LinearInterpolation(coefficients)
        z0 = self.initial(series.evaluate(series.interval[0]))
        # A fixed-step solver's step: the spacing of the series' 10 observations on [0, 1].
        options = {"step_size": 1 / 9} if self.method == "rk4" else {}
        z = torchcde.cdeint(X=series, func=self.field, z0=z0, t=series.interval, method=self.method, options=options)
        return self.readout(z[:, 1])


class _CdeField(torch.nn.Module):
    def __init__(self, hidden: int, channels: int) -> None:
        super().__init__()
        self.shape = (hidden, channels)
        self.network = torch.nn.Sequential(torch.nn.Linear(hidden, 16), torch.nn.ReLU(), torch.nn.Linear(16, hidden * channels), torch.nn.Tanh())

    def forward(self, t: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        return self.network(z).view(z.size(0), *self.shape)


def _series() -> torch.Tensor:
    torch.manual_seed(0)
    t = torch.linspace(0, 1, 10)
    return torch.stack([t.expand(2, 10), torch.rand(2, 10), torch.rand(2, 10)], dim=-1)


@program("torchcde:cubic_dopri5", "torchcde")
def torchcde_cubic_dopri5():  # type: ignore[no-untyped-def]
    return _NeuralCde("cubic", "dopri5")


@program("torchcde:linear_rk4", "torchcde")
def torchcde_linear_rk4():  # type: ignore[no-untyped-def]
    return _NeuralCde("linear", "rk4")


def _torchcde_cubic_dopri5_inputs():  # type: ignore[no-untyped-def]
    import torchcde

    return torchcde.hermite_cubic_coefficients_with_backward_differences(_series())


def _torchcde_linear_rk4_inputs():  # type: ignore[no-untyped-def]
    import torchcde

    return torchcde.linear_interpolation_coeffs(_series())


class _NeuralOde(torch.nn.Module):
    """torchdyn's NeuralODE over a fixed time span; the trajectory's last state."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model
        self.register_buffer("t_span", torch.linspace(0, 1, 5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, trajectory = self.model(x, self.t_span)
        return trajectory[-1]


@program("torchdyn:neural_ode", "torchdyn")
def torchdyn_neural_ode():  # type: ignore[no-untyped-def]
    from torchdyn.core import NeuralODE

    torch.manual_seed(0)
    field = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))
    return _NeuralOde(NeuralODE(field, solver="tsit5", sensitivity="autograd"))


@program("torchdyn:cnf", "torchdyn")
def torchdyn_cnf():  # type: ignore[no-untyped-def]
    from torchdyn.core import NeuralODE
    from torchdyn.models import CNF
    from torchdyn.nn import Augmenter

    torch.manual_seed(0)
    field = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.Softplus(), torch.nn.Linear(16, 2))
    return _ContinuousFlow(Augmenter(augment_idx=1, augment_dims=1), NeuralODE(CNF(field), solver="rk4", sensitivity="autograd"))


class _ContinuousFlow(_NeuralOde):
    """torchdyn's continuous normalizing flow: the state augmented with its log-density change,
    integrated over the time span; the last state."""

    def __init__(self, augmenter: torch.nn.Module, model: torch.nn.Module) -> None:
        super().__init__(model)
        self.augmenter = augmenter

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(self.augmenter(x))


def _torchdyn_neural_ode_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 2)


_torchdyn_cnf_inputs = _torchdyn_neural_ode_inputs


@program("kan:kan", "kan")
def kan_kan():  # type: ignore[no-untyped-def]
    from kan import KAN

    return KAN(width=[2, 5, 1], grid=5, k=3, seed=0, auto_save=False)


@program("kan:kan_layer", "kan")
def kan_kan_layer():  # type: ignore[no-untyped-def]
    from kan import KANLayer

    torch.manual_seed(0)
    return _FirstOutput(KANLayer(in_dim=2, out_dim=4, num=5, k=3))


class _FirstOutput(torch.nn.Module):
    """A layer that returns its activations with its intermediate values, as its model uses the first."""

    def __init__(self, layer: torch.nn.Module) -> None:
        super().__init__()
        self.layer = layer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer(x)[0]


def _kan_kan_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(8, 2) * 2 - 1


_kan_kan_layer_inputs = _kan_kan_inputs


@program("perceiver_pytorch:perceiver", "perceiver_pytorch")
def perceiver_pytorch_perceiver():  # type: ignore[no-untyped-def]
    from perceiver_pytorch import Perceiver

    torch.manual_seed(0)
    return Perceiver(
        input_channels=3, input_axis=2, num_freq_bands=6, max_freq=10.0, depth=2, num_latents=16, latent_dim=64,
        cross_dim_head=16, latent_dim_head=16, num_classes=10,
    )  # fmt: skip


def _perceiver_pytorch_perceiver_inputs():  # type: ignore[no-untyped-def]
    return _images().permute(0, 2, 3, 1)  # Perceiver takes channels last


@program("perceiver_pytorch:perceiver_io", "perceiver_pytorch")
def perceiver_pytorch_perceiver_io():  # type: ignore[no-untyped-def]
    from perceiver_pytorch import PerceiverIO

    torch.manual_seed(0)
    return PerceiverIO(dim=32, queries_dim=32, logits_dim=100, depth=2, num_latents=16, latent_dim=64, cross_dim_head=16, latent_dim_head=16)


def _perceiver_pytorch_perceiver_io_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return {"data": torch.randn(2, 24, 32), "mask": torch.arange(24).expand(2, 24) < torch.tensor([[24], [18]]), "queries": torch.randn(2, 12, 32)}


class _ShtRoundTrip(torch.nn.Module):
    """A spectral filter on the sphere: the real spherical-harmonic transform, a learned scale per
    degree, and the inverse transform."""

    def __init__(self) -> None:
        super().__init__()
        from torch_harmonics import InverseRealSHT, RealSHT

        torch.manual_seed(0)
        self.sht, self.isht = RealSHT(16, 32, grid="equiangular"), InverseRealSHT(16, 32, grid="equiangular")
        self.scale = torch.nn.Parameter(torch.rand(self.sht.lmax, 1))

    def forward(self, field: torch.Tensor) -> torch.Tensor:
        return self.isht(self.sht(field) * self.scale)


@program("torch_harmonics:sht_filter", "torch_harmonics")
def torch_harmonics_sht_filter():  # type: ignore[no-untyped-def]
    return _ShtRoundTrip()


@program("torch_harmonics:sfno", "torch_harmonics")
def torch_harmonics_sfno():  # type: ignore[no-untyped-def]
    from torch_harmonics.examples.models.sfno import SphericalFourierNeuralOperator

    torch.manual_seed(0)
    return SphericalFourierNeuralOperator(img_size=(16, 32), in_chans=3, out_chans=3, embed_dim=16, num_layers=2, scale_factor=2)


def _torch_harmonics_sht_filter_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 3, 16, 32)


_torch_harmonics_sfno_inputs = _torch_harmonics_sht_filter_inputs



# -- the held-out half drawn third on 2026-11-28 (reach.py THIRD_DRAW, committed before this was
# written): one or two programs each, as the library's README builds what its users compile; small
# widths and depths, nothing tuned on. They run with `--python .venv-214/bin/python` (`pip install
# st-moe-pytorch reformer-pytorch performer-pytorch egnn-pytorch piq pytorch-wavelets PyWavelets
# 'setuptools<81' kymatio 'scipy<1.15' rtdl-revisiting-models torch-dct tab-transformer-pytorch`:
# pytorch_wavelets imports pkg_resources, and kymatio 0.3 scipy's `sph_harm`).


@program("st_moe_pytorch:moe", "st_moe_pytorch")
def st_moe_pytorch_moe():  # type: ignore[no-untyped-def]
    from st_moe_pytorch import MoE

    torch.manual_seed(0)
    return MoE(dim=32, num_experts=4, gating_top_n=2, threshold_train=0.2, threshold_eval=0.2)


def _st_moe_pytorch_moe_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 16, 32)


@program("reformer_pytorch:reformer_lm", "reformer_pytorch")
def reformer_pytorch_reformer_lm():  # type: ignore[no-untyped-def]
    from reformer_pytorch import ReformerLM

    torch.manual_seed(0)
    return ReformerLM(num_tokens=256, dim=32, depth=2, max_seq_len=128, heads=4, bucket_size=16, n_hashes=2, causal=True)


def _reformer_pytorch_reformer_lm_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randint(0, 256, (2, 128))


@program("performer_pytorch:performer_lm", "performer_pytorch")
def performer_pytorch_performer_lm():  # type: ignore[no-untyped-def]
    from performer_pytorch import PerformerLM

    torch.manual_seed(0)
    return PerformerLM(num_tokens=256, max_seq_len=64, dim=32, depth=2, heads=4, dim_head=8, causal=False, nb_features=16)


def _performer_pytorch_performer_lm_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randint(0, 256, (2, 64))


@program("egnn_pytorch:egnn_network", "egnn_pytorch")
def egnn_pytorch_egnn_network():  # type: ignore[no-untyped-def]
    from egnn_pytorch import EGNN_Network

    torch.manual_seed(0)
    return EGNN_Network(num_tokens=21, num_positions=64, dim=16, depth=2, num_nearest_neighbors=8, coor_weights_clamp_value=2.0)


def _egnn_pytorch_egnn_network_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randint(0, 21, (2, 32)), torch.randn(2, 32, 3)


class _ImageLoss(torch.nn.Module):
    """An image-quality loss of piq between a restored image and its reference, as a training step computes it."""

    def __init__(self, loss: Any) -> None:
        super().__init__()
        self.loss = loss

    def forward(self, restored: torch.Tensor, reference: torch.Tensor) -> torch.Tensor:
        return self.loss(restored, reference)


def _image_pair():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(2, 3, 32, 32), torch.rand(2, 3, 32, 32)


@program("piq:ssim_loss", "piq")
def piq_ssim_loss():  # type: ignore[no-untyped-def]
    import piq

    return _ImageLoss(piq.SSIMLoss(data_range=1.0))


@program("piq:gmsd_loss", "piq")
def piq_gmsd_loss():  # type: ignore[no-untyped-def]
    import piq

    return _ImageLoss(piq.GMSDLoss(data_range=1.0))


_piq_ssim_loss_inputs = _image_pair
_piq_gmsd_loss_inputs = _image_pair


class _WaveletRoundTrip(torch.nn.Module):
    """pytorch_wavelets' README: a 2-D wavelet transform of J levels and its inverse."""

    def __init__(self) -> None:
        super().__init__()
        from pytorch_wavelets import DWTForward, DWTInverse

        self.forward_transform = DWTForward(J=2, mode="zero", wave="db3")
        self.inverse_transform = DWTInverse(mode="zero", wave="db3")

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        low, high = self.forward_transform(images)
        return self.inverse_transform((low, high))


@program("pytorch_wavelets:dwt_round_trip", "pytorch_wavelets")
def pytorch_wavelets_dwt_round_trip():  # type: ignore[no-untyped-def]
    return _WaveletRoundTrip()


_pytorch_wavelets_dwt_round_trip_inputs = _images


@program("kymatio:scattering2d", "kymatio")
def kymatio_scattering2d():  # type: ignore[no-untyped-def]
    from kymatio.torch import Scattering2D

    return Scattering2D(J=2, shape=(32, 32))


_kymatio_scattering2d_inputs = _images


@program("rtdl_revisiting_models:ft_transformer", "rtdl_revisiting_models")
def rtdl_revisiting_models_ft_transformer():  # type: ignore[no-untyped-def]
    from rtdl_revisiting_models import FTTransformer

    torch.manual_seed(0)
    return FTTransformer(n_cont_features=3, cat_cardinalities=[4, 5], d_out=1, **FTTransformer.get_default_kwargs(n_blocks=2))


def _rtdl_revisiting_models_ft_transformer_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 3), torch.stack([torch.randint(0, 4, (2,)), torch.randint(0, 5, (2,))], dim=1)


class _DctCompression(torch.nn.Module):
    """torch-dct's 2-D DCT: keep the low frequencies of each image and transform back (JPEG-like)."""

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        import torch_dct

        coefficients = torch_dct.dct_2d(images, norm="ortho")
        keep = torch.zeros_like(coefficients)
        keep[..., :8, :8] = 1
        return torch_dct.idct_2d(coefficients * keep, norm="ortho")


@program("torch_dct:dct_compression", "torch_dct")
def torch_dct_dct_compression():  # type: ignore[no-untyped-def]
    return _DctCompression()


_torch_dct_dct_compression_inputs = _images


@program("tab_transformer_pytorch:tab_transformer", "tab_transformer_pytorch")
def tab_transformer_pytorch_tab_transformer():  # type: ignore[no-untyped-def]
    from tab_transformer_pytorch import TabTransformer

    torch.manual_seed(0)
    return TabTransformer(categories=(10, 5, 6), num_continuous=4, dim=16, dim_out=1, depth=2, heads=4, mlp_act=torch.nn.ReLU())


def _tab_transformer_pytorch_tab_transformer_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    categories = torch.stack([torch.randint(0, n, (2,)) for n in (10, 5, 6)], dim=1)
    return categories, torch.randn(2, 4)


def build_program(name: str) -> Any:
    library, build = PROGRAMS[name]
    importlib.import_module(library)
    return build()


# -- the held-out half drawn fifth on 2026-11-28 (reach.py FIFTH_DRAW, committed before this was
# written): one or two programs each, as the library's README builds what its users compile; small
# widths and depths, nothing tuned on. They run with `--python .venv-214/bin/python` (`pip install
# encodec torchlibrosa pytorch-toolbelt mlp-mixer-pytorch hamburger-pytorch axial-attention
# gated-state-spaces-pytorch memory-efficient-attention-pytorch`).


@program("encodec:encodec", "encodec")
def encodec_encodec():  # type: ignore[no-untyped-def]
    from encodec import EncodecModel

    torch.manual_seed(0)
    model = EncodecModel.encodec_model_24khz(pretrained=False)
    model.set_target_bandwidth(6.0)
    return model


def _encodec_encodec_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(1, 1, 2400)


class _LogMel(torch.nn.Module):
    """torchlibrosa's README (the PANNs front end): a spectrogram, then log-mel filter banks."""

    def __init__(self) -> None:
        super().__init__()
        from torchlibrosa.stft import LogmelFilterBank, Spectrogram

        self.spectrogram = Spectrogram(n_fft=256, hop_length=80, win_length=256, window="hann", center=True, pad_mode="reflect")
        self.logmel = LogmelFilterBank(sr=8000, n_fft=256, n_mels=32, fmin=50, fmax=4000, ref=1.0, amin=1e-10, top_db=None)

    def forward(self, audio: torch.Tensor) -> torch.Tensor:
        return self.logmel(self.spectrogram(audio))


@program("torchlibrosa:logmel", "torchlibrosa")
def torchlibrosa_logmel():  # type: ignore[no-untyped-def]
    return _LogMel()


def _torchlibrosa_logmel_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 4000)


class _SegmentationLoss(torch.nn.Module):
    """pytorch-toolbelt's README: a segmentation loss of focal and Lovasz terms, as a training step computes it."""

    def __init__(self) -> None:
        super().__init__()
        from pytorch_toolbelt import losses

        self.focal = losses.CrossEntropyFocalLoss()
        self.lovasz = losses.LovaszLoss()

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return self.focal(logits, target) + 0.5 * self.lovasz(logits, target)


@program("pytorch_toolbelt:focal_lovasz", "pytorch_toolbelt")
def pytorch_toolbelt_focal_lovasz():  # type: ignore[no-untyped-def]
    return _SegmentationLoss()


def _pytorch_toolbelt_focal_lovasz_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 4, 16, 16), torch.randint(0, 4, (2, 16, 16))


class _DiceLoss(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        from pytorch_toolbelt import losses

        self.dice = losses.DiceLoss(mode="multiclass")

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return self.dice(logits, target)


@program("pytorch_toolbelt:dice", "pytorch_toolbelt")
def pytorch_toolbelt_dice():  # type: ignore[no-untyped-def]
    return _DiceLoss()


_pytorch_toolbelt_dice_inputs = _pytorch_toolbelt_focal_lovasz_inputs


@program("mlp_mixer_pytorch:mlp_mixer", "mlp_mixer_pytorch")
def mlp_mixer_pytorch_mlp_mixer():  # type: ignore[no-untyped-def]
    from mlp_mixer_pytorch import MLPMixer

    torch.manual_seed(0)
    return MLPMixer(image_size=32, channels=3, patch_size=8, dim=32, depth=2, num_classes=10)


def _mlp_mixer_pytorch_mlp_mixer_inputs():  # type: ignore[no-untyped-def]
    return _images()


@program("hamburger_pytorch:hamburger", "hamburger_pytorch")
def hamburger_pytorch_hamburger():  # type: ignore[no-untyped-def]
    from hamburger_pytorch import Hamburger

    torch.manual_seed(0)
    return Hamburger(dim=32, n=16 * 16, inner_dim=32, ratio=8, K=6)


def _hamburger_pytorch_hamburger_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 32, 16, 16)


@program("axial_attention:axial_image_transformer", "axial_attention")
def axial_attention_axial_image_transformer():  # type: ignore[no-untyped-def]
    from axial_attention import AxialImageTransformer

    torch.manual_seed(0)
    return AxialImageTransformer(dim=16, depth=2, heads=4, reversible=True)


def _axial_attention_axial_image_transformer_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 16, 16, 16)


@program("gated_state_spaces_pytorch:gss_lm", "gated_state_spaces_pytorch")
def gated_state_spaces_pytorch_gss_lm():  # type: ignore[no-untyped-def]
    from gated_state_spaces_pytorch import GatedStateSpacesLM

    torch.manual_seed(0)
    return GatedStateSpacesLM(num_tokens=256, dim=32, depth=2, dss_kernel_N=32, dss_kernel_H=32)


def _gated_state_spaces_pytorch_gss_lm_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randint(0, 256, (2, 128))


@program("memory_efficient_attention_pytorch:attention", "memory_efficient_attention_pytorch")
def memory_efficient_attention_pytorch_attention():  # type: ignore[no-untyped-def]
    from memory_efficient_attention_pytorch import Attention

    torch.manual_seed(0)
    return Attention(dim=32, dim_head=8, heads=4, causal=True, memory_efficient=True, q_bucket_size=32, k_bucket_size=64)


def _memory_efficient_attention_pytorch_attention_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 128, 32)


def build_program_inputs(name: str) -> Any:
    return globals()[f"_{PROGRAMS[name][1].__name__}_inputs"]()


def library_of(name: str) -> str:
    return PROGRAMS[name][0]


def _call(program: Any, inputs: Any) -> Any:
    if isinstance(inputs, dict):
        return program(**inputs)
    if isinstance(inputs, tuple):
        return program(*inputs)
    return program(inputs)


# -- the held-out half drawn fourth on 2026-11-28 (reach.py FOURTH_DRAW, committed before this was
# written): one or two programs each, as the library's README builds what its users compile; small
# widths and depths, nothing tuned on. They run with `--python .venv-214/bin/python` (`pip install
# pytorch-crf neuraloperator conformer local-attention nystrom-attention siren-pytorch
# info-nce-pytorch linear-attention-transformer`).


class _CrfTagger(torch.nn.Module):
    """pytorch-crf's README: a CRF over a tagger's emissions; the loss is its negative log-likelihood."""

    def __init__(self) -> None:
        super().__init__()
        from torchcrf import CRF

        self.emit = torch.nn.Linear(16, 5)
        self.crf = CRF(5, batch_first=True)

    def forward(self, features: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return -self.crf(self.emit(features), tags, mask=mask)


@program("torchcrf:crf_loss", "torchcrf")
def torchcrf_crf_loss():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _CrfTagger()


def _torchcrf_crf_loss_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    mask = torch.ones(2, 8, dtype=torch.bool)
    mask[1, 5:] = False
    return torch.randn(2, 8, 16), torch.randint(0, 5, (2, 8)), mask


@program("neuralop:fno", "neuralop")
def neuralop_fno():  # type: ignore[no-untyped-def]
    from neuralop.models import FNO

    torch.manual_seed(0)
    return FNO(n_modes=(8, 8), hidden_channels=16, in_channels=1, out_channels=1)


def _neuralop_fno_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 1, 32, 32)


@program("conformer:conformer", "conformer")
def conformer_conformer():  # type: ignore[no-untyped-def]
    from conformer import Conformer

    torch.manual_seed(0)
    return Conformer(dim=32, depth=2, dim_head=8, heads=4, ff_mult=2, conv_expansion_factor=2, conv_kernel_size=7)


def _conformer_conformer_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 64, 32)


@program("local_attention:local_transformer", "local_attention")
def local_attention_local_transformer():  # type: ignore[no-untyped-def]
    from local_attention import LocalTransformer

    torch.manual_seed(0)
    return LocalTransformer(num_tokens=256, dim=32, depth=2, max_seq_len=128, causal=True, local_attn_window_size=16)


def _local_attention_local_transformer_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randint(0, 256, (2, 128))


class _MaskedLocalAttention(torch.nn.Module):
    """local-attention's README: `LocalAttention` over queries, keys and values with a padding mask."""

    def __init__(self) -> None:
        super().__init__()
        from local_attention import LocalAttention

        self.attn = LocalAttention(dim=16, window_size=16, causal=False, look_backward=1, look_forward=1, autopad=True)

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.attn(q, k, v, mask=mask)


@program("local_attention:masked_attention", "local_attention")
def local_attention_masked_attention():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _MaskedLocalAttention()


def _local_attention_masked_attention_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    mask = torch.ones(2, 60, dtype=torch.bool)
    mask[1, 40:] = False
    return torch.randn(2, 4, 60, 16), torch.randn(2, 4, 60, 16), torch.randn(2, 4, 60, 16), mask


class _MaskedNystrom(torch.nn.Module):
    """nystrom-attention's README: `Nystromformer` over a sequence with a padding mask."""

    def __init__(self) -> None:
        super().__init__()
        from nystrom_attention import Nystromformer

        self.model = Nystromformer(dim=32, dim_head=8, heads=4, depth=2, num_landmarks=16, pinv_iterations=6)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.model(x, mask=mask)


@program("nystrom_attention:nystromformer", "nystrom_attention")
def nystrom_attention_nystromformer():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _MaskedNystrom()


def _nystrom_attention_nystromformer_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    mask = torch.ones(2, 100, dtype=torch.bool)
    mask[1, 70:] = False
    return torch.randn(2, 100, 32), mask


@program("siren_pytorch:siren_wrapper", "siren_pytorch")
def siren_pytorch_siren_wrapper():  # type: ignore[no-untyped-def]
    from siren_pytorch import SirenNet, SirenWrapper

    torch.manual_seed(0)
    net = SirenNet(dim_in=2, dim_hidden=32, dim_out=3, num_layers=3, w0_initial=30.0)
    return SirenWrapper(net, image_width=16, image_height=16)


def _siren_pytorch_siren_wrapper_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(1, 3, 16, 16)


class _InfoNceHead(torch.nn.Module):
    """info-nce-pytorch's README: InfoNCE between two views' embeddings, with unpaired negatives."""

    def __init__(self) -> None:
        super().__init__()
        from info_nce import InfoNCE

        self.project = torch.nn.Linear(32, 16)
        self.loss = InfoNCE(negative_mode="unpaired")

    def forward(self, query: torch.Tensor, positive: torch.Tensor, negatives: torch.Tensor) -> torch.Tensor:
        return self.loss(self.project(query), self.project(positive), self.project(negatives))


@program("info_nce:info_nce_loss", "info_nce")
def info_nce_info_nce_loss():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _InfoNceHead()


def _info_nce_info_nce_loss_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(8, 32), torch.randn(8, 32), torch.randn(12, 32)


@program("linear_attention_transformer:lm", "linear_attention_transformer")
def linear_attention_transformer_lm():  # type: ignore[no-untyped-def]
    from linear_attention_transformer import LinearAttentionTransformerLM

    torch.manual_seed(0)
    return LinearAttentionTransformerLM(
        num_tokens=256, dim=32, heads=4, depth=2, max_seq_len=128, causal=True, dim_head=8, blindspot_size=16,
        n_local_attn_heads=2, local_attn_window_size=16, ff_chunks=2, shift_tokens=True,
    )  # fmt: skip


def _linear_attention_transformer_lm_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randint(0, 256, (2, 128))


# -- the held-out half drawn sixth on 2026-11-29 (reach.py SIXTH_DRAW, committed before this was
# written): as each library's README or first tutorial builds what its users run, small widths,
# depths and time steps, nothing tuned on. They run with `--python .venv-214/bin/python` (`pip
# install snntorch spikingjelly norse e3nn normflows segment-anything openunmix torchcrepe`).


class _SnnTorchConvNet(torch.nn.Module):
    """snnTorch's README: a convolutional spiking network of `Leaky` neurons that keep their own
    state (`init_hidden=True`), reset, then stepped over time, its spikes recorded."""

    def __init__(self) -> None:
        super().__init__()
        import snntorch as snn
        from snntorch import surrogate

        spike_grad = surrogate.fast_sigmoid()
        self.net = torch.nn.Sequential(
            torch.nn.Conv2d(1, 8, 5),
            torch.nn.MaxPool2d(2),
            snn.Leaky(beta=0.5, init_hidden=True, spike_grad=spike_grad),
            torch.nn.Conv2d(8, 16, 5),
            torch.nn.MaxPool2d(2),
            snn.Leaky(beta=0.5, init_hidden=True, spike_grad=spike_grad),
            torch.nn.Flatten(),
            torch.nn.Linear(16 * 4 * 4, 10),
            snn.Leaky(beta=0.5, init_hidden=True, spike_grad=spike_grad, output=True),
        )

    def forward(self, data: torch.Tensor) -> torch.Tensor:
        from snntorch import utils

        utils.reset(self.net)
        spikes = []
        for step in range(data.shape[0]):
            spike, _ = self.net(data[step])
            spikes.append(spike)
        return torch.stack(spikes)


@program("snntorch:conv_snn", "snntorch")
def snntorch_conv_snn():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _SnnTorchConvNet()


def _snntorch_conv_snn_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(6, 2, 1, 28, 28)


class _SpikingJellySingleStep(torch.nn.Module):
    """SpikingJelly's quick start: a flattening layer, a linear layer and LIF neurons, run for T
    steps on the same input, the firing rate averaged, the network's state reset after the batch
    (`functional.reset_net`), as its first tutorial trains it."""

    def __init__(self, steps: int = 4) -> None:
        super().__init__()
        from spikingjelly.activation_based import layer, neuron, surrogate

        self.steps = steps
        self.net = torch.nn.Sequential(
            layer.Flatten(), layer.Linear(28 * 28, 10, bias=False), neuron.LIFNode(tau=2.0, surrogate_function=surrogate.ATan())
        )

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        from spikingjelly.activation_based import functional

        rate = 0.0
        for _ in range(self.steps):
            rate = rate + self.net(images)
        functional.reset_net(self.net)
        return rate / self.steps


@program("spikingjelly:lif_quick_start", "spikingjelly")
def spikingjelly_lif_quick_start():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _SpikingJellySingleStep()


def _spikingjelly_lif_quick_start_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(2, 1, 28, 28)


class _SpikingJellyMultiStep(torch.nn.Module):
    """SpikingJelly's convolutional network in multi-step mode (`functional.set_step_mode(net,
    "m")`, the mode its documentation recommends for speed): input of shape [T, N, C, H, W]."""

    def __init__(self) -> None:
        super().__init__()
        from spikingjelly.activation_based import functional, layer, neuron, surrogate

        self.net = torch.nn.Sequential(
            layer.Conv2d(1, 8, kernel_size=3, padding=1, bias=False),
            layer.BatchNorm2d(8),
            neuron.IFNode(surrogate_function=surrogate.ATan()),
            layer.MaxPool2d(2, 2),
            layer.Flatten(),
            layer.Linear(8 * 14 * 14, 10, bias=False),
            neuron.IFNode(surrogate_function=surrogate.ATan()),
        )
        functional.set_step_mode(self.net, "m")

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        from spikingjelly.activation_based import functional

        rate = self.net(frames).mean(0)
        functional.reset_net(self.net)
        return rate


@program("spikingjelly:conv_multi_step", "spikingjelly")
def spikingjelly_conv_multi_step():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _SpikingJellyMultiStep()


def _spikingjelly_conv_multi_step_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(4, 2, 1, 28, 28)


class _NorseOutput(torch.nn.Module):
    """A Norse module returns its output and its neurons' state; a caller keeps the output."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, data: torch.Tensor) -> torch.Tensor:
        output, _ = self.model(data)
        return output


@program("norse:conv_lif", "norse")
def norse_conv_lif():  # type: ignore[no-untyped-def]
    """Norse's README: a convolutional network of LIF cells in a `SequentialState`."""
    from norse.torch import LICell, LIFCell, SequentialState

    torch.manual_seed(0)
    return _NorseOutput(
        SequentialState(
            torch.nn.Conv2d(1, 8, 5, 1),
            LIFCell(),
            torch.nn.MaxPool2d(2, 2),
            torch.nn.Conv2d(8, 16, 5, 1),
            LIFCell(),
            torch.nn.MaxPool2d(2, 2),
            torch.nn.Flatten(),
            torch.nn.Linear(16 * 4 * 4, 10),
            LICell(),
        )
    )


def _norse_conv_lif_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 1, 28, 28)


@program("norse:lsnn_recurrent", "norse")
def norse_lsnn_recurrent():  # type: ignore[no-untyped-def]
    """Norse's README: a recurrent long short-term spiking network over 20 time steps."""
    from norse.torch import LSNNRecurrent

    torch.manual_seed(0)
    return _NorseOutput(LSNNRecurrent(2, 10))


def _norse_lsnn_recurrent_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(20, 2, 2)


class _E3nnReadme(torch.nn.Module):
    """e3nn's README: a linear layer and a full tensor product of the input with itself (the
    README compiles the tensor product with `fullgraph=True`)."""

    def __init__(self) -> None:
        super().__init__()
        from e3nn import o3

        irreps_in = o3.Irreps("0e + 1o")
        self.linear = o3.Linear(irreps_in=irreps_in, irreps_out=o3.Irreps("2x0e + 2x1o"))
        self.tensor_product = o3.FullTensorProduct(irreps_in1=irreps_in, irreps_in2=irreps_in)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.linear(x), self.tensor_product(x, x)


@program("e3nn:readme_tensor_product", "e3nn")
def e3nn_readme_tensor_product():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _E3nnReadme()


def _e3nn_readme_tensor_product_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 4)


class _E3nnGatedBlock(torch.nn.Module):
    """An equivariant block as e3nn's documentation builds one: spherical harmonics of the edge
    vectors, a fully connected tensor product with the features, a gate, a linear layer."""

    def __init__(self) -> None:
        super().__init__()
        from e3nn import nn as e3nn_nn
        from e3nn import o3

        self.irreps_sh = o3.Irreps.spherical_harmonics(2)
        self.gate = e3nn_nn.Gate("8x0e", [torch.relu], "4x0e", [torch.sigmoid], "4x1o")
        self.tensor_product = o3.FullyConnectedTensorProduct("8x0e + 4x1o", self.irreps_sh, self.gate.irreps_in)
        self.linear = o3.Linear(self.gate.irreps_out, "4x0e + 2x1o")

    def forward(self, features: torch.Tensor, vectors: torch.Tensor) -> torch.Tensor:
        from e3nn import o3

        sh = o3.spherical_harmonics(self.irreps_sh, vectors, normalize=True, normalization="component")
        return self.linear(self.gate(self.tensor_product(features, sh)))


@program("e3nn:gated_block", "e3nn")
def e3nn_gated_block():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _E3nnGatedBlock()


def _e3nn_gated_block_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(16, 20), torch.randn(16, 3)


class _NormflowsForwardKld(torch.nn.Module):
    """normflows' README: a Real NVP of affine coupling blocks and swaps over a 2-D Gaussian base,
    trained by maximum likelihood (`model.forward_kld(x)`, the loss its users minimize)."""

    def __init__(self, layers: int = 4) -> None:
        super().__init__()
        import normflows as nf

        flows = []
        for _ in range(layers):
            flows.append(nf.flows.AffineCouplingBlock(nf.nets.MLP([1, 16, 16, 2], init_zeros=True)))
            flows.append(nf.flows.Permute(2, mode="swap"))
        self.model = nf.NormalizingFlow(nf.distributions.base.DiagGaussian(2), flows)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model.forward_kld(x)


@program("normflows:real_nvp_kld", "normflows")
def normflows_real_nvp_kld():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _NormflowsForwardKld()


def _normflows_real_nvp_kld_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(64, 2)


class _SamPointPrompt(torch.nn.Module):
    """Segment Anything's `Sam.forward`, its end-to-end call: an image and a point prompt, one
    mask per prompt. A small image encoder (the builder's shapes, narrower and two blocks deep)."""

    def __init__(self) -> None:
        super().__init__()
        from segment_anything.build_sam import _build_sam

        self.sam = _build_sam(encoder_embed_dim=32, encoder_depth=2, encoder_num_heads=2, encoder_global_attn_indexes=[1])

    def forward(self, image: torch.Tensor, point_coords: torch.Tensor, point_labels: torch.Tensor):  # type: ignore[no-untyped-def]
        prompt = {"image": image, "original_size": tuple(image.shape[-2:]), "point_coords": point_coords, "point_labels": point_labels}
        output = self.sam([prompt], multimask_output=False)[0]
        return output["low_res_logits"], output["iou_predictions"]


@program("segment_anything:point_prompt", "segment_anything")
def segment_anything_point_prompt():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _SamPointPrompt()


def _segment_anything_point_prompt_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(3, 128, 128) * 255, torch.tensor([[[40.0, 60.0]]]), torch.tensor([[1]])


@program("openunmix:separator", "openunmix")
def openunmix_separator():  # type: ignore[no-untyped-def]
    """Open-Unmix's separator as `openunmix.umxhq` builds it (two targets, a narrower STFT and
    LSTM), one iteration of Wiener filtering, no weights."""
    from openunmix import utils
    from openunmix.model import OpenUnmix, Separator

    torch.manual_seed(0)
    max_bin = utils.bandwidth_to_max_bin(rate=44100.0, n_fft=512, bandwidth=16000)
    targets = {name: OpenUnmix(nb_bins=512 // 2 + 1, nb_channels=2, hidden_size=32, max_bin=max_bin) for name in ("vocals", "drums")}
    return Separator(target_models=targets, niter=1, n_fft=512, n_hop=128, nb_channels=2, wiener_win_len=300)


def _openunmix_separator_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(1, 2, 8192) * 0.1


class _CrepePitch(torch.nn.Module):
    """torchcrepe's README: `torchcrepe.predict` of the tiny model (its weights ship in the
    package), a 5 ms hop, a speech range, Viterbi decoding (the default)."""

    def __init__(self) -> None:
        super().__init__()
        import torchcrepe

        torchcrepe.load.model("cpu", "tiny")

    def forward(self, audio: torch.Tensor) -> torch.Tensor:
        import torchcrepe

        return torchcrepe.predict(audio, 16000, 80, 50, 550, "tiny", batch_size=2048, device="cpu")


@program("torchcrepe:predict", "torchcrepe")
def torchcrepe_predict():  # type: ignore[no-untyped-def]
    return _CrepePitch()


def _torchcrepe_predict_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(1, 4000) * 0.1



# -- the held-out half drawn seventh on 2026-11-29 (reach.py SEVENTH_DRAW, committed before this was
# written): as each library's README or first tutorial builds what its users run, small widths,
# depths and lengths, nothing tuned on. They run with `--python .venv-214/bin/python` (`pip install
# fair-esm schnetpack xlstm efficientnet-pytorch lightly ctgan pytorch-tcn soft-moe-pytorch`, then
# torchvision again for torch 2.14: lightly's requirement pulls an old one, with its torch).


class _EsmRepresentations(torch.nn.Module):
    """fair-esm's README: a batch of sequences through the alphabet's batch converter, then
    `model(tokens, repr_layers=[...], return_contacts=True)`; an ESM-2 of 2 layers, no weights."""

    def __init__(self) -> None:
        super().__init__()
        from esm.model.esm2 import ESM2

        self.model = ESM2(num_layers=2, embed_dim=64, attention_heads=4, alphabet="ESM-1b", token_dropout=True)

    def forward(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        results = self.model(tokens, repr_layers=[2], return_contacts=True)
        return results["representations"][2], results["contacts"]


@program("esm:esm2_contacts", "esm")
def esm_esm2_contacts():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _EsmRepresentations()


def _esm_esm2_contacts_inputs():  # type: ignore[no-untyped-def]
    import esm

    converter = esm.data.Alphabet.from_architecture("ESM-1b").get_batch_converter()
    _, _, tokens = converter([("protein1", "MKTVRQERLKSIVRILERSKEPVSGAQ"), ("protein2", "KALTARQQEVFDLIRDHISQTGMPPTRAEI")])
    return tokens


def _schnet_potential(forces: bool):  # type: ignore[no-untyped-def]
    """SchNetPack's first tutorials: pairwise distances, a SchNet representation on a Gaussian
    radial basis with a cosine cutoff, an atomwise energy head (and its forces by autograd, as the
    MD17 tutorial trains it)."""
    import schnetpack as spk

    torch.manual_seed(0)
    cutoff = 5.0
    schnet = spk.representation.SchNet(
        n_atom_basis=16, n_interactions=2, radial_basis=spk.nn.GaussianRBF(n_rbf=10, cutoff=cutoff),
        cutoff_fn=spk.nn.CosineCutoff(cutoff),
    )  # fmt: skip
    outputs = [spk.atomistic.Atomwise(n_in=16, output_key="energy")]
    if forces:
        outputs.append(spk.atomistic.Forces(energy_key="energy", force_key="forces"))
    return spk.model.NeuralNetworkPotential(
        representation=schnet, input_modules=[spk.atomistic.PairwiseDistances()], output_modules=outputs,
    )  # fmt: skip


def _schnet_inputs():  # type: ignore[no-untyped-def]
    """Two molecules as SchNetPack's `AtomsConverter` batches them, with an ASE neighbor list."""
    import schnetpack as spk
    from ase.build import molecule

    converter = spk.interfaces.AtomsConverter(neighbor_list=spk.transform.ASENeighborList(cutoff=5.0), dtype=torch.float32)
    return (converter([molecule("H2O"), molecule("CH4")]),)


@program("schnetpack:schnet_energy", "schnetpack")
def schnetpack_schnet_energy():  # type: ignore[no-untyped-def]
    return _schnet_potential(forces=False)


def _schnetpack_schnet_energy_inputs():  # type: ignore[no-untyped-def]
    return _schnet_inputs()


@program("schnetpack:schnet_forces", "schnetpack")
def schnetpack_schnet_forces():  # type: ignore[no-untyped-def]
    return _schnet_potential(forces=True)


def _schnetpack_schnet_forces_inputs():  # type: ignore[no-untyped-def]
    return _schnet_inputs()


@program("xlstm:block_stack", "xlstm")
def xlstm_block_stack():  # type: ignore[no-untyped-def]
    """xLSTM's README: an `xLSTMBlockStack` of mLSTM blocks with an sLSTM block at 1, on the
    sLSTM's pure-PyTorch backend ("vanilla", the README's "cuda" needs a GPU)."""
    from xlstm import (
        FeedForwardConfig, mLSTMBlockConfig, mLSTMLayerConfig, sLSTMBlockConfig, sLSTMLayerConfig, xLSTMBlockStack,
        xLSTMBlockStackConfig,
    )  # fmt: skip

    torch.manual_seed(0)
    cfg = xLSTMBlockStackConfig(
        mlstm_block=mLSTMBlockConfig(mlstm=mLSTMLayerConfig(conv1d_kernel_size=4, qkv_proj_blocksize=4, num_heads=4)),
        slstm_block=sLSTMBlockConfig(
            slstm=sLSTMLayerConfig(backend="vanilla", num_heads=4, conv1d_kernel_size=4, bias_init="powerlaw_blockdependent"),
            feedforward=FeedForwardConfig(proj_factor=1.3, act_fn="gelu"),
        ),
        context_length=16, num_blocks=2, embedding_dim=32, slstm_at=[1],
    )  # fmt: skip
    return xLSTMBlockStack(cfg)


def _xlstm_block_stack_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 16, 32)


@program("efficientnet_pytorch:efficientnet_b0", "efficientnet_pytorch")
def efficientnet_pytorch_efficientnet_b0():  # type: ignore[no-untyped-def]
    """efficientnet_pytorch's README: `EfficientNet.from_name('efficientnet-b0')` (no weights), a
    class count of its own."""
    from efficientnet_pytorch import EfficientNet

    torch.manual_seed(0)
    return EfficientNet.from_name("efficientnet-b0", num_classes=10)


def _efficientnet_pytorch_efficientnet_b0_inputs():  # type: ignore[no-untyped-def]
    return _images(size=64)


class _SimCLRLoss(torch.nn.Module):
    """lightly's README: SimCLR, a ResNet-18 without its classifier, lightly's projection head and
    its NT-Xent loss over two augmented views, as each training step computes it."""

    def __init__(self) -> None:
        super().__init__()
        import torchvision
        from lightly.loss import NTXentLoss
        from lightly.models.modules.heads import SimCLRProjectionHead

        resnet = torchvision.models.resnet18()
        self.backbone = torch.nn.Sequential(*list(resnet.children())[:-1])
        self.projection_head = SimCLRProjectionHead(512, 512, 128)
        self.criterion = NTXentLoss()

    def forward(self, x0: torch.Tensor, x1: torch.Tensor) -> torch.Tensor:
        z0 = self.projection_head(self.backbone(x0).flatten(start_dim=1))
        z1 = self.projection_head(self.backbone(x1).flatten(start_dim=1))
        return self.criterion(z0, z1)


@program("lightly:simclr_loss", "lightly")
def lightly_simclr_loss():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _SimCLRLoss()


def _lightly_simclr_loss_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(4, 3, 32, 32), torch.rand(4, 3, 32, 32)


class _DinoLoss(torch.nn.Module):
    """lightly's DINO example: a student and a momentum teacher (a small ViT-free backbone here, a
    ResNet-18's trunk), lightly's DINO heads and its DINO loss with the teacher's temperature
    warm-up at an epoch, over a global and a local view."""

    def __init__(self) -> None:
        super().__init__()
        import copy

        import torchvision
        from lightly.loss import DINOLoss
        from lightly.models.modules import DINOProjectionHead

        resnet = torchvision.models.resnet18()
        self.student_backbone = torch.nn.Sequential(*list(resnet.children())[:-1])
        self.student_head = DINOProjectionHead(512, 64, 16, 32, freeze_last_layer=1)
        self.teacher_backbone = copy.deepcopy(self.student_backbone)
        self.teacher_head = DINOProjectionHead(512, 64, 16, 32)
        self.criterion = DINOLoss(output_dim=32, warmup_teacher_temp_epochs=5)

    def forward(self, global_view: torch.Tensor, local_view: torch.Tensor) -> torch.Tensor:
        teacher_out = [self.teacher_head(self.teacher_backbone(global_view).flatten(start_dim=1))]
        student_out = [self.student_head(self.student_backbone(view).flatten(start_dim=1)) for view in (global_view, local_view)]
        return self.criterion(teacher_out, student_out, epoch=1)


@program("lightly:dino_loss", "lightly")
def lightly_dino_loss():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _DinoLoss()


def _lightly_dino_loss_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(4, 3, 32, 32), torch.rand(4, 3, 16, 16)


class _CtganSample(torch.nn.Module):
    """CTGAN's README: `CTGAN(epochs=...)` fitted on a table with discrete columns; then what the
    generator's training step in `fit` computes per batch: the generator on normal noise and a
    condition vector, each column's activation (tanh for a mode's value, Gumbel-softmax for modes
    and categories), and the discriminator's score of that with the condition."""

    def __init__(self) -> None:
        super().__init__()
        import numpy as np
        import pandas as pd
        from ctgan import CTGAN

        rng = np.random.default_rng(0)
        table = pd.DataFrame({
            "age": rng.normal(40, 10, 200).round(), "income": rng.lognormal(10, 1, 200),
            "city": rng.choice(["a", "b", "c"], 200), "member": rng.choice(["yes", "no"], 200),
        })  # fmt: skip
        torch.manual_seed(0)
        self.synthesizer = CTGAN(epochs=1, batch_size=20, generator_dim=(32, 32), discriminator_dim=(32, 32), embedding_dim=16, pac=2)
        self.synthesizer.fit(table, discrete_columns=["city", "member"])
        self.generator = self.synthesizer._generator
        # `fit` keeps its discriminator local: one like it, as `fit` builds it.
        from ctgan.synthesizers.ctgan import Discriminator

        width = self.synthesizer._transformer.output_dimensions + self.synthesizer._data_sampler.dim_cond_vec()
        self.discriminator = Discriminator(width, (32, 32), pac=2)

    def forward(self, noise: torch.Tensor, condition: torch.Tensor) -> torch.Tensor:
        fake = self.synthesizer._apply_activate(self.generator(torch.cat([noise, condition], dim=1)))
        return self.discriminator(torch.cat([fake, condition], dim=1))


@program("ctgan:sample_score", "ctgan")
def ctgan_sample_score():  # type: ignore[no-untyped-def]
    return _CtganSample()


def _ctgan_sample_score_inputs():  # type: ignore[no-untyped-def]
    """Normal noise and a condition vector as CTGAN's data sampler draws it: one category of
    one discrete column (the table's 3 cities, then its 2 member flags)."""
    torch.manual_seed(0)
    return torch.randn(4, 16), torch.nn.functional.one_hot(torch.tensor([0, 1, 2, 0]), 5).float()


@program("pytorch_tcn:tcn", "pytorch_tcn")
def pytorch_tcn_tcn():  # type: ignore[no-untyped-def]
    """pytorch-tcn's README: a causal TCN with weight norm, its defaults otherwise."""
    from pytorch_tcn import TCN

    torch.manual_seed(0)
    return TCN(num_inputs=4, num_channels=[16, 16, 16], kernel_size=4, causal=True)


def _pytorch_tcn_tcn_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 4, 64)


class _TcnStreaming(torch.nn.Module):
    """pytorch-tcn's streaming inference: the buffers reset, then the sequence fed block by block
    (batch 1) with `inference=True`."""

    def __init__(self) -> None:
        super().__init__()
        from pytorch_tcn import TCN

        self.tcn = TCN(num_inputs=4, num_channels=[16, 16], kernel_size=3, causal=True)

    def forward(self, sequence: torch.Tensor) -> torch.Tensor:
        self.tcn.reset_buffers()
        return torch.cat([self.tcn(block, inference=True) for block in sequence.split(8, dim=-1)], dim=-1)


@program("pytorch_tcn:streaming", "pytorch_tcn")
def pytorch_tcn_streaming():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _TcnStreaming()


def _pytorch_tcn_streaming_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(1, 4, 32)


class _SoftMoEBlock(torch.nn.Module):
    """soft-moe-pytorch's README: `SoftMoE(dim, seq_len, num_experts)` with a residual."""

    def __init__(self) -> None:
        super().__init__()
        from soft_moe_pytorch import SoftMoE

        self.moe = SoftMoE(dim=32, seq_len=16, num_experts=4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.moe(x) + x


@program("soft_moe_pytorch:soft_moe", "soft_moe_pytorch")
def soft_moe_pytorch_soft_moe():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _SoftMoEBlock()


def _soft_moe_pytorch_soft_moe_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 16, 32)


# -- the held-out half drawn eighth on 2026-11-29 (reach.py EIGHTH_DRAW, committed before this was
# written): fields where a training step takes a path of its own, each built as its README builds
# it, small widths, depths and lengths, nothing tuned on; measure with `--mode train` as well. They
# run with `--python .venv-214/bin/python` (`pip install -c <(echo torch==2.14.1) g-mlp-pytorch
# dropblock mixture-of-experts nfnets-pytorch pytorch-nlp compressive-transformer-pytorch
# memory-transformer-xl`).


@program("g_mlp_pytorch:gmlp_lm", "g_mlp_pytorch")
def g_mlp_pytorch_gmlp_lm():  # type: ignore[no-untyped-def]
    """g-mlp-pytorch's README: a gMLP language model whose layers each survive a training step
    with `prob_survival`, with the circulant spatial gating and tanh activation it shows."""
    from g_mlp_pytorch import gMLP

    torch.manual_seed(0)
    return gMLP(num_tokens=64, dim=32, depth=4, seq_len=16, prob_survival=0.9, circulant_matrix=True, act=torch.nn.Tanh())


def _g_mlp_pytorch_gmlp_lm_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randint(0, 64, (2, 16))


@program("g_mlp_pytorch:gmlp_vision", "g_mlp_pytorch")
def g_mlp_pytorch_gmlp_vision():  # type: ignore[no-untyped-def]
    """g-mlp-pytorch's README: `gMLPVision` on image patches, layers surviving with `prob_survival`."""
    from g_mlp_pytorch import gMLPVision

    torch.manual_seed(0)
    return gMLPVision(image_size=32, patch_size=8, num_classes=10, dim=32, depth=4, prob_survival=0.9)


def _g_mlp_pytorch_gmlp_vision_inputs():  # type: ignore[no-untyped-def]
    return _images()


class _DropBlockNet(torch.nn.Module):
    """dropblock's README: a convolution block regularized by `DropBlock2D`; with `scheduled`, the
    README's `LinearScheduler` whose `step()` the forward takes once per training step, as the
    repository's ResNet example does."""

    def __init__(self, scheduled: bool) -> None:
        super().__init__()
        from dropblock import DropBlock2D, LinearScheduler

        self.scheduled = scheduled
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        if scheduled:
            self.dropblock = LinearScheduler(DropBlock2D(block_size=3, drop_prob=0.0), start_value=0.0, stop_value=0.25, nr_steps=5)
        else:
            self.dropblock = DropBlock2D(block_size=3, drop_prob=0.3)
        self.head = torch.nn.Linear(8, 10)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        if self.scheduled:
            self.dropblock.step()
        hidden = self.dropblock(torch.relu(self.conv1(images)))
        hidden = self.dropblock(torch.relu(self.conv2(hidden)))
        return self.head(hidden.mean(dim=(2, 3)))


@program("dropblock:dropblock2d", "dropblock")
def dropblock_dropblock2d():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _DropBlockNet(scheduled=False)


def _dropblock_dropblock2d_inputs():  # type: ignore[no-untyped-def]
    return _images(size=16)


@program("dropblock:scheduled", "dropblock")
def dropblock_scheduled():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _DropBlockNet(scheduled=True)


def _dropblock_scheduled_inputs():  # type: ignore[no-untyped-def]
    return _images(size=16)


class _MoELayer(torch.nn.Module):
    """mixture-of-experts's README: `out, aux_loss = moe(inputs)`, top-2 gating whose second expert
    is kept by the README's 'random' policy; the auxiliary loss added to the output's sum as a
    training step adds it to the loss."""

    def __init__(self, hierarchical: bool) -> None:
        super().__init__()
        from mixture_of_experts import HeirarchicalMoE, MoE

        if hierarchical:
            self.moe = HeirarchicalMoE(dim=32, num_experts=(2, 2))
        else:
            self.moe = MoE(
                dim=32, num_experts=4, hidden_dim=64, activation=torch.nn.LeakyReLU, second_policy_train="random",
                second_policy_eval="random", second_threshold_train=0.2, second_threshold_eval=0.2,
                capacity_factor_train=1.25, capacity_factor_eval=2.0, loss_coef=1e-2,
            )  # fmt: skip

    def forward(self, inputs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out, aux_loss = self.moe(inputs)
        return out, aux_loss


@program("mixture_of_experts:moe", "mixture_of_experts")
def mixture_of_experts_moe():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _MoELayer(hierarchical=False)


def _mixture_of_experts_moe_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 16, 32)


@program("mixture_of_experts:hierarchical", "mixture_of_experts")
def mixture_of_experts_hierarchical():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _MoELayer(hierarchical=True)


def _mixture_of_experts_hierarchical_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 16, 32)


@program("nfnets:nf_resnet18", "nfnets")
def nfnets_nf_resnet18():  # type: ignore[no-untyped-def]
    """nfnets-pytorch's models: a normalizer-free ResNet-18 (scaled weight-standardized
    convolutions, no batch norm), a class count of its own."""
    from nfnets.models.resnet import nf_resnet18

    torch.manual_seed(0)
    return nf_resnet18(num_classes=10)


def _nfnets_nf_resnet18_inputs():  # type: ignore[no-untyped-def]
    return _images()


class _AwdLstm(torch.nn.Module):
    """pytorch-nlp's recurrent regularizers as an AWD-LSTM language model uses them: locked
    (variational) dropout on the embeddings and between layers, and an LSTM whose hidden-to-hidden
    weights are dropped per step (`WeightDropLSTM`)."""

    def __init__(self) -> None:
        super().__init__()
        from torchnlp.nn import LockedDropout, WeightDropLSTM

        self.embedding = torch.nn.Embedding(64, 16)
        self.lstm = WeightDropLSTM(16, 32, num_layers=1, weight_dropout=0.5)
        self.dropout = LockedDropout(p=0.3)
        self.decoder = torch.nn.Linear(32, 64)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        # LockedDropout takes (sequence, batch, features), as the LSTM does.
        embedded = self.dropout(self.embedding(tokens).transpose(0, 1))
        output, _ = self.lstm(embedded)
        return self.decoder(self.dropout(output))


@program("torchnlp:awd_lstm", "torchnlp")
def torchnlp_awd_lstm():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _AwdLstm()


def _torchnlp_awd_lstm_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randint(0, 64, (2, 12))


class _AttentionDecoder(torch.nn.Module):
    """pytorch-nlp's `Attention` as its docs call it: a decoder's queries attending over an
    encoder's context, with the dropout a training step applies to the output."""

    def __init__(self) -> None:
        super().__init__()
        from torchnlp.nn import Attention

        self.attention = Attention(32)
        self.dropout = torch.nn.Dropout(0.2)

    def forward(self, query: torch.Tensor, context: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        output, weights = self.attention(query, context)
        return self.dropout(output), weights


@program("torchnlp:attention", "torchnlp")
def torchnlp_attention():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return _AttentionDecoder()


def _torchnlp_attention_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 3, 32), torch.randn(2, 8, 32)


class _SegmentsWithMemory(torch.nn.Module):
    """A memory transformer as its README runs it: a sequence in two segments, the second given the
    memories the first returned; the logits of both (and the auxiliary reconstruction loss the
    compressive transformer returns, which its training adds to the loss)."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, segments: torch.Tensor) -> tuple[torch.Tensor, ...]:
        first, *rest = self.model(segments[0])
        second, *_ = self.model(segments[1], memories=rest[0])
        return (first, second, *rest[1:])


@program("compressive_transformer_pytorch:two_segments", "compressive_transformer_pytorch")
def compressive_transformer_pytorch_two_segments():  # type: ignore[no-untyped-def]
    """compressive-transformer-pytorch's README, small: memory layers 2 to 3 of 3, dropouts as
    the README sets them, GRU-gated residuals."""
    from compressive_transformer_pytorch import CompressiveTransformer

    torch.manual_seed(0)
    model = CompressiveTransformer(
        num_tokens=64, emb_dim=16, dim=32, depth=3, seq_len=16, mem_len=16, cmem_len=4, cmem_ratio=4, heads=4,
        attn_layer_dropout=0.1, ff_dropout=0.1, attn_dropout=0.1, reconstruction_attn_dropout=0.1, gru_gated_residual=True,
        mogrify_gru=False, memory_layers=range(2, 4), ff_glu=True,
    )  # fmt: skip
    return _SegmentsWithMemory(model)


def _compressive_transformer_pytorch_two_segments_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randint(0, 64, (2, 32)).reshape(2, 2, 16).transpose(0, 1)


@program("memory_transformer_xl:two_segments", "memory_transformer_xl")
def memory_transformer_xl_two_segments():  # type: ignore[no-untyped-def]
    """memory-transformer-xl's README, small: short- and long-term memories written by memory
    layers 2 and 3 of 3, memory key-values, two write iterations."""
    from memory_transformer_xl import MemoryTransformerXL

    torch.manual_seed(0)
    model = MemoryTransformerXL(
        num_tokens=64, dim=32, heads=4, depth=3, seq_len=16, mem_len=8, lmem_len=8, mem_write_iters=2,
        memory_layers=[2, 3], num_mem_kv=4,
    )  # fmt: skip
    return _SegmentsWithMemory(model)


def _memory_transformer_xl_two_segments_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randint(0, 64, (2, 32)).reshape(2, 2, 16).transpose(0, 1)


# -- the held-out half drawn ninth on 2026-12-03 (reach.py NINTH_DRAW, committed before this was
# written): one to three programs each, as the library's documentation builds what its users
# compile (a training step's loss where the library is trained, a model's forward where it is
# run); small widths, nothing tuned on. They run in `.venv-reach` (`pip install -c <(echo
# torch==2.13.0; echo transformers==5.24.0) torchkge tianshou torchani recbole torchphysics
# pytorch-forecasting`).


class _KgeStep(torch.nn.Module):
    """TorchKGE's training loop body: corrupt the batch with the negative sampler, score the true
    and corrupted triples, and take the loss."""

    def __init__(self, model_class: str, sampler_class: str, loss: Any) -> None:
        super().__init__()
        from torchkge import models, sampling

        torch.manual_seed(0)
        self.kg = _knowledge_graph()
        model_type = getattr(models, model_class)
        self.model = model_type(16, self.kg.n_ent, self.kg.n_rel, **({"dissimilarity_type": "L2"} if model_class == "TransEModel" else {}))
        self.sampler = getattr(sampling, sampler_class)(self.kg)
        self.loss = loss

    def forward(self, heads: torch.Tensor, tails: torch.Tensor, relations: torch.Tensor) -> torch.Tensor:
        negative_heads, negative_tails = self.sampler.corrupt_batch(heads, tails, relations)
        positive, negative = self.model(heads, tails, relations, negative_heads, negative_tails)
        return self.loss(positive, negative)


def _knowledge_graph() -> Any:
    import pandas as pd
    from torchkge.data_structures import KnowledgeGraph

    rows = [(f"e{i}", f"e{(i * 7 + 1) % 10}", f"r{i % 3}") for i in range(20)]
    return KnowledgeGraph(df=pd.DataFrame(rows, columns=["from", "to", "rel"]))


@program("torchkge:transe_margin", "torchkge")
def torchkge_transe_margin():  # type: ignore[no-untyped-def]
    from torchkge.utils import MarginLoss

    return _KgeStep("TransEModel", "BernoulliNegativeSampler", MarginLoss(0.5))


def _torchkge_transe_margin_inputs():  # type: ignore[no-untyped-def]
    kg = _knowledge_graph()
    return kg.head_idx[:8], kg.tail_idx[:8], kg.relations[:8]


@program("torchkge:complex_bce", "torchkge")
def torchkge_complex_bce():  # type: ignore[no-untyped-def]
    from torchkge.utils import BinaryCrossEntropyLoss

    return _KgeStep("ComplExModel", "UniformNegativeSampler", BinaryCrossEntropyLoss())


_torchkge_complex_bce_inputs = _torchkge_transe_margin_inputs


class _TianshouRecurrent(torch.nn.Module):
    """Tianshou's LSTM network of a recurrent policy, over a stacked observation sequence with the
    state carried from the last step, as its training step calls it."""

    def __init__(self) -> None:
        super().__init__()
        from tianshou.utils.net.common import Recurrent

        torch.manual_seed(0)
        self.net = Recurrent(layer_num=2, state_shape=8, action_shape=4, hidden_layer_size=32)

    def forward(self, obs: torch.Tensor, hidden: torch.Tensor, cell: torch.Tensor) -> Any:
        logits, state = self.net(obs, {"hidden": hidden, "cell": cell})
        return logits, state["hidden"], state["cell"]


@program("tianshou:recurrent", "tianshou")
def tianshou_recurrent():  # type: ignore[no-untyped-def]
    return _TianshouRecurrent()


def _tianshou_recurrent_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 5, 8), torch.zeros(2, 2, 32), torch.zeros(2, 2, 32)


class _TianshouDueling(torch.nn.Module):
    """Tianshou's dueling Q network (`Net` with `dueling_param`), the Q values a DQN step reads."""

    def __init__(self) -> None:
        super().__init__()
        from tianshou.utils.net.common import Net

        torch.manual_seed(0)
        self.net = Net(state_shape=8, action_shape=4, hidden_sizes=[32, 32], dueling_param=({"hidden_sizes": [16]}, {"hidden_sizes": [16]}))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        q_values, _ = self.net(obs)
        return q_values


@program("tianshou:dueling_q", "tianshou")
def tianshou_dueling_q():  # type: ignore[no-untyped-def]
    return _TianshouDueling()


def _tianshou_dueling_q_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 8)


class _TianshouCuriosity(torch.nn.Module):
    """Tianshou's intrinsic curiosity module: the forward and inverse models' losses of a
    transition batch, as the ICM policy wrapper computes its bonus."""

    def __init__(self) -> None:
        super().__init__()
        from tianshou.utils.net.common import MLP
        from tianshou.utils.net.discrete import IntrinsicCuriosityModule

        torch.manual_seed(0)
        features = MLP(input_dim=8, output_dim=16, hidden_sizes=[32])
        self.icm = IntrinsicCuriosityModule(feature_net=features, feature_dim=16, action_dim=4, hidden_sizes=[32])

    def forward(self, obs: torch.Tensor, actions: torch.Tensor, next_obs: torch.Tensor) -> Any:
        return self.icm(obs, actions, next_obs)


@program("tianshou:curiosity", "tianshou")
def tianshou_curiosity():  # type: ignore[no-untyped-def]
    return _TianshouCuriosity()


def _tianshou_curiosity_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 8), torch.tensor([1, 3]), torch.randn(2, 8)


def _ani() -> Any:
    import torchani

    torch.manual_seed(0)
    # TorchANI's own constructor of a fresh (untrained) ANI model: no weights are downloaded.
    return torchani.arch.simple_ani(("H", "C", "N", "O"), "wb97x-631gd", strategy="pyaev")


class _AniEnergies(torch.nn.Module):
    """TorchANI's energies of a batch of molecules (atomic numbers, coordinates in Angstrom)."""

    def __init__(self) -> None:
        super().__init__()
        self.model = _ani()

    def forward(self, species: torch.Tensor, coordinates: torch.Tensor) -> torch.Tensor:
        return self.model((species, coordinates)).energies


class _AniForces(_AniEnergies):
    """TorchANI's energies and forces (the negative gradient of the energy by the coordinates),
    as a molecular-dynamics step asks for them."""

    def forward(self, species: torch.Tensor, coordinates: torch.Tensor) -> Any:
        with torch.enable_grad():
            coordinates = coordinates.detach().requires_grad_(True)
            energies = self.model((species, coordinates)).energies
            forces = -torch.autograd.grad(energies.sum(), coordinates, create_graph=True)[0]
        return energies, forces


@program("torchani:energies", "torchani")
def torchani_energies():  # type: ignore[no-untyped-def]
    return _AniEnergies()


@program("torchani:forces", "torchani")
def torchani_forces():  # type: ignore[no-untyped-def]
    return _AniForces()


def _torchani_energies_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    # Methane and water (padded with -1), as TorchANI's examples batch molecules.
    species = torch.tensor([[6, 1, 1, 1, 1], [8, 1, 1, -1, -1]])
    return species, torch.randn(2, 5, 3) * 0.6


_torchani_forces_inputs = _torchani_energies_inputs


class _RecboleLoss(torch.nn.Module):
    """A RecBole sequential recommender's training loss of a batch of item sequences (its
    `calculate_loss` of an `Interaction`)."""

    def __init__(self, model_class: str, **config: Any) -> None:
        super().__init__()
        from recbole.model import sequential_recommender

        torch.manual_seed(0)
        settings = {
            "USER_ID_FIELD": "user_id", "ITEM_ID_FIELD": "item_id", "LIST_SUFFIX": "_list",
            "ITEM_LIST_LENGTH_FIELD": "item_length", "NEG_PREFIX": "neg_", "MAX_ITEM_LIST_LENGTH": 6,
            "device": torch.device("cpu"), "embedding_size": 16, "hidden_size": 16, "loss_type": "CE",
            "num_layers": 1, "dropout_prob": 0.0, "initializer_range": 0.02, **config,
        }  # fmt: skip
        self.model = getattr(sequential_recommender, model_class)(settings, _RecboleDataset())

    def forward(self, item_seq: torch.Tensor, item_length: torch.Tensor, item: torch.Tensor) -> torch.Tensor:
        from recbole.data.interaction import Interaction

        return self.model.calculate_loss(Interaction({"item_id_list": item_seq, "item_length": item_length, "item_id": item}))


class _RecboleDataset:
    """What a RecBole model reads of its dataset when built: the number of items (a dataset is
    otherwise loaded from files)."""

    def num(self, field: str) -> int:
        return 20


@program("recbole:gru4rec", "recbole")
def recbole_gru4rec():  # type: ignore[no-untyped-def]
    return _RecboleLoss("GRU4Rec")


@program("recbole:sasrec", "recbole")
def recbole_sasrec():  # type: ignore[no-untyped-def]
    return _RecboleLoss(
        "SASRec", n_layers=1, n_heads=2, inner_size=32, hidden_dropout_prob=0.0, attn_dropout_prob=0.0,
        hidden_act="gelu", layer_norm_eps=1e-12,
    )  # fmt: skip


def _recbole_gru4rec_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randint(1, 20, (2, 6)), torch.tensor([6, 4]), torch.tensor([3, 7])


_recbole_sasrec_inputs = _recbole_gru4rec_inputs


class _TorchPhysicsResidual(torch.nn.Module):
    """TorchPhysics' physics-informed loss of Poisson's equation on the unit square: the network's
    Laplacian at sampled points against the right-hand side, with its own differential operators."""

    def __init__(self) -> None:
        super().__init__()
        import torchphysics as tp

        torch.manual_seed(0)
        self.space = tp.spaces.R2("x")
        self.model = tp.models.FCN(input_space=self.space, output_space=tp.spaces.R1("u"), hidden=(16, 16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        import torchphysics as tp

        with torch.enable_grad():
            x = x.detach().requires_grad_(True)
            u = self.model(tp.spaces.Points(x, self.space)).as_tensor
            residual = tp.utils.laplacian(u, x) - 1.0
        return residual.pow(2).mean()


@program("torchphysics:poisson_residual", "torchphysics")
def torchphysics_poisson_residual():  # type: ignore[no-untyped-def]
    return _TorchPhysicsResidual()


def _torchphysics_poisson_residual_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.rand(16, 2)


class _Forecaster(torch.nn.Module):
    """A PyTorch Forecasting model's forward on one batch of its own dataloader (the network
    prediction a training step takes the loss of)."""

    def __init__(self, model_class: str, **options: Any) -> None:
        super().__init__()
        import pytorch_forecasting

        torch.manual_seed(0)
        self.model = getattr(pytorch_forecasting, model_class).from_dataset(_time_series(), **options)

    def forward(self, x: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.model(x)["prediction"]


def _time_series() -> Any:
    import numpy as np
    import pandas as pd
    from pytorch_forecasting import TimeSeriesDataSet

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"series": np.repeat(["a", "b"], 30), "time_idx": np.tile(np.arange(30), 2), "value": rng.normal(size=60).astype("float32")}
    )
    return TimeSeriesDataSet(
        frame, time_idx="time_idx", target="value", group_ids=["series"], max_encoder_length=8, max_prediction_length=3,
        time_varying_unknown_reals=["value"], static_categoricals=["series"],
    )  # fmt: skip


def _forecast_batch() -> Any:
    x, _ = next(iter(_time_series().to_dataloader(train=False, batch_size=2)))
    return (x,)


@program("pytorch_forecasting:tft", "pytorch_forecasting")
def pytorch_forecasting_tft():  # type: ignore[no-untyped-def]
    return _Forecaster("TemporalFusionTransformer", hidden_size=8, attention_head_size=1, hidden_continuous_size=4)


@program("pytorch_forecasting:deepar", "pytorch_forecasting")
def pytorch_forecasting_deepar():  # type: ignore[no-untyped-def]
    return _Forecaster("DeepAR", hidden_size=8, rnn_layers=1)


_pytorch_forecasting_tft_inputs = _forecast_batch
_pytorch_forecasting_deepar_inputs = _forecast_batch


# -- the held-out half drawn tenth on 2026-12-03 (reach.py TENTH_DRAW, committed before this was
# written): two or three programs each, as the library's documentation builds what its users
# compile or run in a step (a policy's actions and a training step's losses, an attribution or a
# class activation map of a small classifier, a recommender's prediction, a structured
# distribution's likelihood, per-sample gradients); small widths, nothing tuned on. They run in
# `.venv-reach` (`pip install -c <(echo torch==2.13.0; echo transformers==5.24.0) skrl captum
# torch-rechub torch-struct torchcam opacus`).


def _skrl_models() -> Any:
    """skrl's documented Gaussian policy and deterministic value function of a continuous-control
    agent (its model instantiation examples), over an 8-dimensional observation and 2 actions."""
    import gymnasium
    from skrl.models.torch import DeterministicMixin, GaussianMixin, Model

    class Policy(GaussianMixin, Model):
        def __init__(self, observation_space: Any, action_space: Any) -> None:
            Model.__init__(self, observation_space=observation_space, action_space=action_space, device="cpu")
            GaussianMixin.__init__(self, clip_actions=True, clip_log_std=True, min_log_std=-20, max_log_std=2)
            self.net = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ELU(), torch.nn.Linear(32, 2))
            self.log_std_parameter = torch.nn.Parameter(torch.zeros(2))

        def compute(self, inputs: dict, role: str = "") -> Any:
            return self.net(inputs["observations"]), {"log_std": self.log_std_parameter}

    class Value(DeterministicMixin, Model):
        def __init__(self, observation_space: Any, action_space: Any) -> None:
            Model.__init__(self, observation_space=observation_space, action_space=action_space, device="cpu")
            DeterministicMixin.__init__(self)
            self.net = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ELU(), torch.nn.Linear(32, 1))

        def compute(self, inputs: dict, role: str = "") -> Any:
            return self.net(inputs["observations"]), {}

    torch.manual_seed(0)
    observations = gymnasium.spaces.Box(-1.0, 1.0, (8,))
    actions = gymnasium.spaces.Box(-1.0, 1.0, (2,))
    return Policy(observations, actions), Value(observations, actions)


class _SkrlPolicy(torch.nn.Module):
    """A skrl Gaussian policy acting on a batch of observations, normalised by its running
    standard scaler (the preprocessor its PPO examples configure), as a rollout step calls it."""

    def __init__(self) -> None:
        super().__init__()
        from skrl.resources.preprocessors.torch import RunningStandardScaler

        self.policy, _ = _skrl_models()
        self.scaler = RunningStandardScaler(8, device="cpu")

    def forward(self, observations: torch.Tensor) -> Any:
        actions, outputs = self.policy.act({"observations": self.scaler(observations, train=True)}, role="policy")
        return actions, outputs["log_prob"], outputs["mean_actions"]


@program("skrl:gaussian_policy", "skrl")
def skrl_gaussian_policy():  # type: ignore[no-untyped-def]
    return _SkrlPolicy()


def _skrl_gaussian_policy_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(16, 8)


class _SkrlPpoLosses(torch.nn.Module):
    """skrl PPO's update on one mini-batch: advantages by its `compute_gae` over the rollout,
    then the clipped surrogate, entropy and clipped value losses as `PPO.update` computes them."""

    def __init__(self) -> None:
        super().__init__()
        self.policy, self.value = _skrl_models()

    def forward(self, observations: torch.Tensor, actions: torch.Tensor, log_prob: torch.Tensor, rewards: torch.Tensor, terminated: torch.Tensor) -> torch.Tensor:
        from skrl.agents.torch.ppo.ppo import compute_gae

        with torch.no_grad():
            values, _ = self.value.act({"observations": observations}, role="value")
        returns, advantages = compute_gae(
            rewards=rewards, terminated=terminated, truncated=torch.zeros_like(terminated), values=values,
            last_values=values[-1], discount_factor=0.99, lambda_coefficient=0.95,
        )  # fmt: skip
        _, outputs = self.policy.act({"observations": observations, "taken_actions": actions}, role="policy")
        ratio = torch.exp(outputs["log_prob"] - log_prob)
        surrogate = torch.min(advantages * ratio, advantages * torch.clip(ratio, 0.8, 1.2))
        entropy = self.policy.get_entropy(role="policy").mean()
        predicted, _ = self.value.act({"observations": observations}, role="value")
        predicted = values + torch.clip(predicted - values, min=-0.2, max=0.2)
        return -surrogate.mean() - 0.01 * entropy + torch.nn.functional.mse_loss(returns, predicted)


@program("skrl:ppo_losses", "skrl")
def skrl_ppo_losses():  # type: ignore[no-untyped-def]
    return _SkrlPpoLosses()


def _skrl_ppo_losses_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(16, 8), torch.rand(16, 2) * 2 - 1, -torch.rand(16, 1), torch.randn(16, 1), torch.rand(16, 1) < 0.1


class _SkrlTrpoDirection(torch.nn.Module):
    """skrl TRPO's natural-gradient step direction: the surrogate loss's gradient, solved against
    the Fisher matrix by its `conjugate_gradient` over Fisher-vector products, as `TRPO.update`
    does before the line search."""

    def __init__(self) -> None:
        super().__init__()
        self.policy, _ = _skrl_models()

    def forward(self, observations: torch.Tensor, actions: torch.Tensor, log_prob: torch.Tensor, advantages: torch.Tensor) -> torch.Tensor:
        from skrl.agents.torch.trpo.trpo import conjugate_gradient, surrogate_loss

        with torch.enable_grad():
            loss = surrogate_loss(
                policy=self.policy, observations=observations, states=None, actions=actions, log_prob=log_prob,
                advantages=advantages,
            )  # fmt: skip
            grads = torch.autograd.grad(loss, self.policy.parameters())
            flat = torch.cat([grad.view(-1) for grad in grads])
            return conjugate_gradient(policy=self.policy, observations=observations, states=None, b=flat, damping=0.1)


@program("skrl:trpo_direction", "skrl")
def skrl_trpo_direction():  # type: ignore[no-untyped-def]
    return _SkrlTrpoDirection()


def _skrl_trpo_direction_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(16, 8), torch.rand(16, 2) * 2 - 1, -torch.rand(16, 1), torch.randn(16, 1)


def _small_classifier() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 4),
    ).eval()  # fmt: skip


class _CaptumAttribution(torch.nn.Module):
    """A captum attribution of a small image classifier's class scores, as its tutorials compute
    one for a batch (the gradients are taken inside, so it runs with gradients enabled)."""

    def __init__(self, method: str, layer: bool = False, **options: Any) -> None:
        super().__init__()
        import captum.attr

        self.model = _small_classifier()
        method_type = getattr(captum.attr, method)
        self.method = method_type(self.model, self.model[2]) if layer else method_type(self.model)
        self.options = options

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            return self.method.attribute(images, target=1, **self.options)


@program("captum:integrated_gradients", "captum")
def captum_integrated_gradients():  # type: ignore[no-untyped-def]
    return _CaptumAttribution("IntegratedGradients", n_steps=8)


@program("captum:layer_gradcam", "captum")
def captum_layer_gradcam():  # type: ignore[no-untyped-def]
    return _CaptumAttribution("LayerGradCam", layer=True)


@program("captum:deeplift", "captum")
def captum_deeplift():  # type: ignore[no-untyped-def]
    return _CaptumAttribution("DeepLift")


def _captum_images():  # type: ignore[no-untyped-def]
    return _images(3, 16)


_captum_integrated_gradients_inputs = _captum_images
_captum_layer_gradcam_inputs = _captum_images
_captum_deeplift_inputs = _captum_images


def _rechub_features(sequence_pooling: str = "concat") -> Any:
    from torch_rechub.basic.features import SequenceFeature, SparseFeature

    user = SparseFeature("user_id", vocab_size=20, embed_dim=8)
    target = SparseFeature("target_item", vocab_size=30, embed_dim=8, padding_idx=0)
    history = SequenceFeature("hist_item", vocab_size=30, embed_dim=8, pooling=sequence_pooling, shared_with="target_item", padding_idx=0)
    negative = SequenceFeature("neg_hist_item", vocab_size=30, embed_dim=8, pooling=sequence_pooling, shared_with="target_item", padding_idx=0)
    return user, target, history, negative


class _RechubRanker(torch.nn.Module):
    """A torch-rechub ranking model's click-through prediction over a batch of users with their
    behaviour sequences (padded with 0, as its `generate_seq_feature` makes them)."""

    def __init__(self, model_class: str) -> None:
        super().__init__()
        from torch_rechub.models import ranking

        torch.manual_seed(0)
        user, target, history, negative = _rechub_features()
        if model_class == "DIN":
            self.model = ranking.DIN(
                features=[user], history_features=[history], target_features=[target], mlp_params={"dims": [16]},
                attention_mlp_params={"dims": [16]},
            )  # fmt: skip
        else:
            self.model = ranking.DIEN(
                features=[user], history_features=[history], neg_history_features=[negative], target_features=[target],
                mlp_params={"dims": [16]},
            )  # fmt: skip

    def forward(self, user_id: torch.Tensor, target_item: torch.Tensor, hist_item: torch.Tensor, neg_hist_item: torch.Tensor) -> Any:
        return self.model({"user_id": user_id, "target_item": target_item, "hist_item": hist_item, "neg_hist_item": neg_hist_item})


def _rechub_batch():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    history = torch.randint(1, 30, (4, 6))
    history[0, 4:] = 0
    history[2, 2:] = 0
    return torch.randint(0, 20, (4,)), torch.randint(1, 30, (4,)), history, torch.randint(1, 30, (4, 6)) * (history != 0)


@program("torch_rechub:din", "torch_rechub")
def torch_rechub_din():  # type: ignore[no-untyped-def]
    return _RechubRanker("DIN")


@program("torch_rechub:dien", "torch_rechub")
def torch_rechub_dien():  # type: ignore[no-untyped-def]
    return _RechubRanker("DIEN")


_torch_rechub_din_inputs = _rechub_batch
_torch_rechub_dien_inputs = _rechub_batch


class _RechubNarm(torch.nn.Module):
    """torch-rechub's NARM session recommender: the session's representation against candidate
    items' embeddings, the scores a matching step ranks."""

    def __init__(self) -> None:
        super().__init__()
        from torch_rechub.basic.features import SequenceFeature, SparseFeature
        from torch_rechub.models.matching import NARM

        torch.manual_seed(0)
        history = SequenceFeature("hist_item", vocab_size=30, embed_dim=8, pooling="concat")
        self.model = NARM(history, hidden_dim=8, emb_dropout_p=0.0, session_rep_dropout_p=0.0, item_feature=SparseFeature("item", 30, 8))

    def forward(self, hist_item: torch.Tensor, item: torch.Tensor) -> Any:
        return self.model({"hist_item": hist_item, "item": item})


@program("torch_rechub:narm", "torch_rechub")
def torch_rechub_narm():  # type: ignore[no-untyped-def]
    return _RechubNarm()


def _torch_rechub_narm_inputs():  # type: ignore[no-untyped-def]
    _, target, history, _ = _rechub_batch()
    return history, target


class _StructLikelihood(torch.nn.Module):
    """A torch-struct distribution over structures scored by a small network: the negative
    log-likelihood of the best structure and the marginals, as a structured-prediction loss and
    its posterior decoding compute them (torch-struct takes both by autograd)."""

    def __init__(self, distribution: str) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.distribution = distribution
        # A linear chain's transitions between 3 tags per position; a dependency tree's arcs, bilinear.
        self.score = torch.nn.Linear(6, 9 if distribution == "LinearChainCRF" else 6)

    def forward(self, features: torch.Tensor, lengths: torch.Tensor) -> Any:
        import torch_struct

        with torch.enable_grad():
            if self.distribution == "LinearChainCRF":
                potentials = self.score(features[:, 1:]).view(features.shape[0], features.shape[1] - 1, 3, 3)
            else:
                potentials = self.score(features) @ features.transpose(1, 2)
            dist = getattr(torch_struct, self.distribution)(potentials, lengths=lengths)
            return -dist.log_prob(dist.argmax).mean(), dist.marginals


@program("torch_struct:linear_chain", "torch_struct")
def torch_struct_linear_chain():  # type: ignore[no-untyped-def]
    return _StructLikelihood("LinearChainCRF")


@program("torch_struct:dependency", "torch_struct")
def torch_struct_dependency():  # type: ignore[no-untyped-def]
    return _StructLikelihood("DependencyCRF")


def _torch_struct_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(3, 6, 6), torch.tensor([6, 4, 5])


_torch_struct_linear_chain_inputs = _torch_struct_inputs
_torch_struct_dependency_inputs = _torch_struct_inputs


class _TorchcamMap(torch.nn.Module):
    """A torchcam class activation map of a small classifier's predicted class, as its README
    extracts one: the extractor hooks the target layer, the model runs, the map is computed from
    the scores."""

    def __init__(self, method: str) -> None:
        super().__init__()
        import torchcam.methods

        self.model = _small_classifier()
        self.extractor = getattr(torchcam.methods, method)(self.model, target_layer=self.model[2], input_shape=(3, 16, 16))

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            scores = self.model(images)
            return self.extractor(scores.argmax(dim=1).tolist(), scores)[0]


@program("torchcam:gradcam", "torchcam")
def torchcam_gradcam():  # type: ignore[no-untyped-def]
    return _TorchcamMap("GradCAM")


@program("torchcam:scorecam", "torchcam")
def torchcam_scorecam():  # type: ignore[no-untyped-def]
    return _TorchcamMap("ScoreCAM")


_torchcam_gradcam_inputs = _captum_images
_torchcam_scorecam_inputs = _captum_images


class _OpacusPerSample(torch.nn.Module):
    """Opacus's per-sample gradients: a classifier wrapped in `GradSampleModule`, its loss's
    backward filling each parameter's `grad_sample`, as a DP-SGD step computes them before
    clipping (the per-sample gradient norms are returned)."""

    def __init__(self) -> None:
        super().__init__()
        from opacus import GradSampleModule

        torch.manual_seed(0)
        self.model = GradSampleModule(torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3)))

    def train(self, mode: bool = True) -> "_OpacusPerSample":
        # The wrapped model is the one a DP-SGD step trains: its hooks record only in training mode.
        super().train(mode)
        self.model.train(True)
        return self

    def forward(self, x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            self.model.zero_grad(set_to_none=True)
            torch.nn.functional.cross_entropy(self.model(x), labels).backward()
            norms = [p.grad_sample.flatten(1).norm(dim=1) for p in self.model.parameters()]
            return torch.stack(norms, dim=1).norm(dim=1)


@program("opacus:per_sample_grads", "opacus")
def opacus_per_sample_grads():  # type: ignore[no-untyped-def]
    return _OpacusPerSample()


def _opacus_per_sample_grads_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(8, 6), torch.randint(0, 3, (8,))


class _OpacusLayer(torch.nn.Module):
    """One of Opacus's layers written for per-sample gradients (`DPLSTM`, `DPMultiheadAttention`),
    where a model trained with DP-SGD uses it in place of torch's."""

    def __init__(self, layer: str) -> None:
        super().__init__()
        import opacus.layers

        torch.manual_seed(0)
        self.layer = opacus.layers.DPLSTM(6, 8, batch_first=True) if layer == "DPLSTM" else opacus.layers.DPMultiheadAttention(8, 2)

    def forward(self, x: torch.Tensor) -> Any:
        if isinstance(self.layer, torch.nn.LSTM) or type(self.layer).__name__ == "DPLSTM":
            return self.layer(x)[0]
        return self.layer(x, x, x)[0]


@program("opacus:dp_lstm", "opacus")
def opacus_dp_lstm():  # type: ignore[no-untyped-def]
    return _OpacusLayer("DPLSTM")


def _opacus_dp_lstm_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(2, 5, 6)


@program("opacus:dp_attention", "opacus")
def opacus_dp_attention():  # type: ignore[no-untyped-def]
    return _OpacusLayer("DPMultiheadAttention")


def _opacus_dp_attention_inputs():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return torch.randn(5, 2, 8)


def probe(name: str) -> dict[str, Any]:
    """Whether the program builds and runs eagerly; its parameter count."""
    try:
        built = build_program(name)
        if isinstance(built, torch.nn.Module):
            built.eval()
        with torch.no_grad():
            _call(built, build_program_inputs(name))
    except Exception as exc:  # noqa: BLE001 - a program that does not run is reported, not raised
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return {"ok": False, "error": f"eager call fails: {last[:200]}"}
    parameters = list(built.parameters()) if isinstance(built, torch.nn.Module) else []
    library = library_of(name)
    return {
        "ok": True, "parameters": sum(p.numel() for p in parameters),
        "trainable": sum(p.numel() for p in parameters if p.requires_grad), "shrunk": [], "library": library,
        "packages": list(PACKAGES.get(library, (library,))),
    }  # fmt: skip


def inputs_requiring_grad(inputs: Any) -> Any:
    """The inputs with each floating-point tensor requiring grad: in a training step of a program
    with no parameter to train (a loss, a frozen front end), the gradient is for its inputs (the
    logits a loss is given), as the model before it would take it."""
    if isinstance(inputs, torch.Tensor):
        return inputs.requires_grad_() if inputs.is_floating_point() else inputs
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(inputs_requiring_grad(item) for item in inputs)
    if isinstance(inputs, dict):
        return {key: inputs_requiring_grad(value) for key, value in inputs.items()}
    return inputs


def main(argv: list[str]) -> None:
    if argv[:1] == ["list"]:
        print(json.dumps(sorted(PROGRAMS)))
    elif argv[:1] == ["probe"] and len(argv) == 2:
        print(json.dumps(probe(argv[1])))
    else:
        sys.exit("usage: reach_programs.py list | probe LIBRARY:NAME")


if __name__ == "__main__":
    main(sys.argv[1:])
