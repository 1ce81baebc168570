# settings: unsafe_fixes=true
# call: ranking_loss(torch.tensor([[0.1, 0.9], [0.4, 0.2]]), torch.tensor([[0.3, 0.8], [0.7, 0.1]]))
import torch
import torch.nn.functional as F


@torch.compile
def ranking_loss(normal_scores, anomalous_scores):
    # A hinge between each bag's highest normal and highest anomalous score.
    loss = normal_scores.new_zeros(
        (),
        requires_grad=True,
    )
    for index in range(normal_scores.shape[0]):
        loss = loss + F.relu(1.0 - anomalous_scores[index].max() + normal_scores[index].max())
    return loss / normal_scores.shape[0]
