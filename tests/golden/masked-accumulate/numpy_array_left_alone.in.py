# settings: assume_compiled=true
# Negative sampling on NumPy arrays (wav2vec2's `_sample_negative_indices` reads the same): the
# code does not show a tensor and no run saw the line break, so the update is left as it is.
import numpy as np


def sample_negative_indices(sequence_length, num_negatives):
    feature_indices = np.broadcast_to(np.arange(sequence_length)[:, None], (sequence_length, num_negatives))
    sampled_indices = np.random.randint(0, sequence_length - 1, size=(sequence_length, num_negatives))
    sampled_indices[sampled_indices >= feature_indices] += 1
    return sampled_indices
