import torch


def bucket_sizes(lengths):
    sizes = lengths.tolist()
    return [size for size in sizes if size > lengths.min().item()]


def collate(batch):
    lengths = torch.tensor([len(b) for b in batch])
    return bucket_sizes(lengths)
