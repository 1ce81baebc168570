# settings: site_lines=12
# A pattern the module keeps, shifted back where a row mask selects (a generation helper's delay
# pattern), where a run saw the break.
import torch


class DelayPattern:
    def __init__(self, pattern):
        self.pattern = pattern

    def shift(self, row_mask):
        self.pattern.index_put_((row_mask,), self.pattern.new_tensor(-1), accumulate=True)
        return self.pattern
