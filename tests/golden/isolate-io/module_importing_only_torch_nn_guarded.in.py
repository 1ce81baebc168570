# settings: unsafe_fixes=true assume_compiled=true
# The module imports torch only as `torch.nn as nn` (zuko's flows): `torch` is unbound, so the
# rewrite adds `import torch` with it.
import torch.nn as nn


class Flow(nn.Module):
    def forward(self, x):
        open("flow.log", "a").close()
        print("step", x.shape)
        return x * 2
