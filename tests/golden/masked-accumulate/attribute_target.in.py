# settings: site_lines=12
# A pattern the module keeps, shifted back where a row mask selects (a generation helper's delay
# pattern), where a run saw the break.
import torch


class DelayPattern:
    def __init__(self, pattern):
        self.pattern = pattern

    def shift(self, row_mask):
        self.pattern[row_mask] -= 1
        return self.pattern
