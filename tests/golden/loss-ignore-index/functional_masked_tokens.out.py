# settings: unsafe_fixes=true
# A training step's loss over the real tokens: `F.cross_entropy` of the logits and labels a
# padding mask selects, with the loss's own ignore index kept.
import torch
import torch.nn.functional as F
from torch import nn


class Tagger(nn.Module):
    def __init__(self, vocab_size=13, hidden_size=8, tags=5):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden_size)
        self.classify = nn.Linear(hidden_size, tags)

    def forward(self, tokens, tags, padding):
        logits = self.classify(self.embed(tokens))
        real = padding == 0
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tags.masked_fill(~real, -1).reshape(-1), ignore_index=-1, label_smoothing=0.1)


step = torch.compile(Tagger())
