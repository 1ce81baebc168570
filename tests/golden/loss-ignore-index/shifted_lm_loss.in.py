# settings: unsafe_fixes=true
# Qwen2-Audio's (and Granite Speech's) loss: the shifted logits and labels selected by the
# attention mask, each moved to its tensor's device, then flattened by the loss.
import torch
from torch import nn


class AudioLanguageHead(nn.Module):
    def __init__(self, hidden_size=8, vocab_size=11):
        super().__init__()
        self.lm_head = nn.Linear(hidden_size, vocab_size)

    def forward(self, hidden_states, attention_mask=None, labels=None):
        logits = self.lm_head(hidden_states)
        loss = None
        if labels is not None:
            # Shift so that tokens < n predict n
            if attention_mask is not None:
                shift_attention_mask = attention_mask[..., 1:]
                shift_logits = logits[..., :-1, :][shift_attention_mask.to(logits.device) != 0].contiguous()
                shift_labels = labels[..., 1:][shift_attention_mask.to(labels.device) != 0].contiguous()
            else:
                shift_logits = logits[..., :-1, :].contiguous()
                shift_labels = labels[..., 1:].contiguous()
            loss_fct = nn.CrossEntropyLoss()
            loss = loss_fct(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1).to(shift_logits.device))
        return loss, logits


model = torch.compile(AudioLanguageHead())
