# settings: unsafe_fixes=true
import numpy as np


def chunk_length(a, b):
    # Never compiled: NumPy runs as NumPy.
    return np.lcm(a, b)
