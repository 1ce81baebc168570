# settings: unsafe_fixes=false
# Unsafe here (a parameter): without --unsafe-fixes the file is unchanged.
import torch


@torch.compile
def augment(x, labels):
    def shuffle_labels(target, classes):
        target.random_(0, to=classes)
        return target

    return x * 2, shuffle_labels(labels, 10)
