import torch
from torch import nn


class Output:
    def __init__(self, loss, logits):
        self.loss = loss
        self.logits = logits


class Head(nn.Module):
    def __init__(self, hidden_size=8, labels=3):
        super().__init__()
        self.classifier = nn.Linear(hidden_size, labels)

    def compute_loss(self, logits, labels):
        loss_fct = nn.CrossEntropyLoss()
        return loss_fct(logits, labels)

    def forward(self, hidden_states, labels):
        logits = self.classifier(hidden_states)
        return Output(self.compute_loss(logits, labels), logits)


model = torch.compile(Head())
