# settings: assume_compiled=true
# call: covariance(torch.arange(48.0).reshape(3, 4, 2, 2)); covariance(torch.linspace(-1.0, 1.0, 12).reshape(1, 2, 3, 2)); gain(torch.arange(16.0).reshape(2, 2, 2, 2))
# Music source separation's spatial covariance (Open-Unmix's Wiener filter): each channel pair
# read from a row of index pairs, its elements indexes; the pairs bound to a name first, or
# iterated where they are made.
import torch
import itertools


def _mul_add(a, b, out):
    return out + a * b


def covariance(y_j):
    (nb_frames, nb_bins, nb_channels) = y_j.shape[:-1]
    Cj = torch.zeros((nb_frames, nb_bins, nb_channels, nb_channels, 2), dtype=y_j.dtype, device=y_j.device)
    indices = itertools.product(range(nb_channels), range(nb_channels))
    for index in indices:
        Cj[:, :, index[0], index[1], :] = _mul_add(y_j[:, :, index[0], :], y_j[:, :, index[1], :], Cj[:, :, index[0], index[1], :])
    return Cj


def gain(inv_Cxx):
    nb_channels = inv_Cxx.shape[-2]
    out = torch.zeros_like(inv_Cxx)
    for index in itertools.product(range(nb_channels), range(nb_channels), range(nb_channels)):
        out[..., index[0], index[1]] = _mul_add(inv_Cxx[..., index[0], index[2]], inv_Cxx[..., index[2], index[1]], out[..., index[0], index[1]])
    return out
