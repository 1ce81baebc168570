# settings: unsafe_fixes=true
# The upper bound as a keyword (`to=`), in a helper nested in the compiled function, on a
# parameter the caller also holds: unsafe (the caller's tensor no longer sees the draw).
import torch


@torch.compile
def augment(x, labels):
    def shuffle_labels(target, classes):
        target = torch.randint_like(target, 0, classes)
        return target

    return x * 2, shuffle_labels(labels, 10)
