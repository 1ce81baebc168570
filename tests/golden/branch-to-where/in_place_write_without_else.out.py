# settings: unsafe_fixes=true
# call: regulate(torch.ones(2, 3), torch.zeros(2, 4, dtype=torch.long)); regulate(torch.ones(2, 3), torch.tensor([[1, 0], [0, 0]])); grad_of_log_cdf(torch.tensor([-2.0, 0.5, -3.0]), torch.tensor(2.0), torch.tensor(4.0)); grad_of_log_cdf(torch.ones(2), torch.tensor(2.0), torch.tensor(4.0))
import math

import torch


@torch.compile
def regulate(encoded_embeddings, duration_labels: torch.Tensor):
    # FastSpeech 2's length regulator: a sequence with no duration at all gets 1 per frame.
    duration_labels_updated = duration_labels.clone()
    duration_labels_updated[duration_labels.sum(dim=1).eq(0)] = 1
    duration_labels.copy_(
        torch.where(duration_labels.sum() == 0, duration_labels_updated, duration_labels),
    )
    return encoded_embeddings.sum() * duration_labels


@torch.compile
def grad_of_log_cdf(z: torch.Tensor, numerator, denominator):
    # gpytorch's log-normal-CDF backward: the small values take the asymptotic gradient.
    log_phi_z_grad = torch.zeros_like(z)
    z_is_small = z.lt(-1)
    log_phi_z_grad_updated = log_phi_z_grad.clone()
    log_phi_z_grad_updated[z_is_small] = torch.abs(denominator.div(numerator)).mul(math.sqrt(2 / math.pi))
    log_phi_z_grad.copy_(
        torch.where(z_is_small.sum() > 0, log_phi_z_grad_updated, log_phi_z_grad),
    )
    return log_phi_z_grad
