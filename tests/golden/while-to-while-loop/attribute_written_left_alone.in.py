# settings: unsafe_fixes=true assume_compiled=true
import torch


class Solver:
    def solve(self, x: torch.Tensor) -> torch.Tensor:
        while (x > 1).any():
            self.steps = self.steps + 1
            x = x / 2
        return x
