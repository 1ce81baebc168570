import time

import torch


def train_step(model, x):
    start = time.perf_counter()
    loss = model(x).sum()
    return loss, time.perf_counter() - start


model = torch.compile(torch.nn.Linear(4, 4))
