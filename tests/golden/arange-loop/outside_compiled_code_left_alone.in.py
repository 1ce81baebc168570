# A training script's loop over datasets, never compiled.
import torch


def run_all(datasets, train):
    results = []
    for i in torch.arange(len(datasets)):
        results.append(train(datasets[int(i)]))
    return results
