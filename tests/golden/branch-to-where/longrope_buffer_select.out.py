# settings: unsafe_fixes=true
import torch


class RotaryEmbedding(torch.nn.Module):
    def longrope_frequency_update(self, position_ids, device):
        seq_len = torch.max(position_ids) + 1
        original_max_position_embeddings = self.config.original_max_position_embeddings
        if not hasattr(self, "long_inv_freq"):
            self.long_inv_freq, _ = self.rope_init_fn(
                self.config, device, seq_len=original_max_position_embeddings + 1
            )
        # Moved with the module, the original copy is not.
        self.original_inv_freq = self.original_inv_freq.to(device)
        self.register_buffer(
            "inv_freq",
            torch.where(seq_len > original_max_position_embeddings, self.long_inv_freq, self.original_inv_freq),
            persistent=False,
        )

    @torch.compile
    def forward(self, x, position_ids):
        self.longrope_frequency_update(position_ids, x.device)
        return x * self.inv_freq
