# settings: assume_compiled=true
# The step goes into a tensor's arithmetic outside an index (clip indices), which traces as it
# is; a step that is returned, printed or passed on would become a number where it was a tensor.
import torch


def clip_indices(feats, stride, clip_length):
    idx = torch.arange(start=0, end=feats.shape[0] - 1, step=stride)
    idxs = []
    for i in torch.arange(0, clip_length):
        idxs.append(idx + i)
    return torch.stack(idxs, dim=1)


def last_step(x):
    for t in torch.arange(x.shape[0]):
        x[t] = x[t] * 2
    return x, t


def logged(x):
    for t in torch.arange(x.shape[0]):
        print(f"step {t}")
        x[t] = x[t] + 1
    return x


def kept(x):
    steps = []
    for t in torch.arange(x.shape[0]):
        steps.append(t)
        x[t] = x[t] + 1
    return x, steps


def item_read(x):
    for t in torch.arange(x.shape[0]):
        x[t.item()] = 0
    return x



def searched(x, limit):
    found = x
    for t in torch.arange(x.shape[0]):
        if x[t].sum() > limit:
            found = x[:t]
            break
    else:
        found = x * t
    return found
