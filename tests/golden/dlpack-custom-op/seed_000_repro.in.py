import torch
import torch.nn as nn


class MyModel(nn.Module):
    def forward(self, x):
        if x.dtype == torch.bool:
            # bool path: go through uint8 + dlpack roundtrip and back to bool
            x_uint8 = x.to(torch.uint8)
            dlpack = torch.utils.dlpack.to_dlpack(x_uint8)
            converted = torch.utils.dlpack.from_dlpack(dlpack)
            return converted.bool()
        else:
            # non-bool path: direct dlpack roundtrip
            dlpack = torch.utils.dlpack.to_dlpack(x)
            return torch.utils.dlpack.from_dlpack(dlpack)


def my_model_function():
    return MyModel()


def GetInput():
    # bool tensor, shape [2], to exercise the bool branch
    return torch.rand(2).bool()


def main():
    if not torch.cuda.is_available():
        raise RuntimeError(
            "CUDA is not available, but this repro expects device='cuda'."
        )
    device = torch.device("cuda")
    # ---------- 1. Eager on CUDA: works ----------
    model_eager = my_model_function().to(device).eval()
    inp = GetInput().to(device)
    with torch.no_grad():
        out_eager = model_eager(inp)
    print("=== Eager CUDA Output ===")
    print("out_eager:", out_eager)
    # ---------- 2. torch.compile on CUDA ----------
    from torch._inductor import config as inductor_config
    old_max_autotune = inductor_config.max_autotune
    inductor_config.max_autotune = True  # emulate 'max-autotune' mode
    try:
        compiled_model = torch.compile(
            model_eager,
            backend="inductor",
            fullgraph=True,
            dynamic=True,
        )
        with torch.no_grad():
            out_compiled = compiled_model(inp)  # <-- fails here
        print("\n=== compiled Output ===")
        print("out_compiled:", out_compiled)
        same = torch.equal(out_eager, out_compiled)
        print("\n=== eager vs compiled elementwise equal ===", bool(same))
    finally:
        inductor_config.max_autotune = old_max_autotune


if __name__ == "__main__":
    main()
