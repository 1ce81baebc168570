"""The array APIs a tensor's data is handed to and back (DLPack, NumPy, CuPy, jax.numpy): which
calls export or import the data, and which array functions keep its shape and dtype.

dlpack-custom-op moves such a round trip into a custom op whose fake kernel must state the
output's shape and dtype; these tables are what it derives them from (what the code between
export and import does to the array). The breaks themselves are `analysis/breakers.py`'s.
"""

from __future__ import annotations

import libcst as cst

# Calls that hand the same data over between frameworks: shape and dtype pass through unchanged.
DLPACK_CONVERSIONS = frozenset({"from_dlpack", "fromDlpack", "to_dlpack", "toDlpack", "__dlpack__", "asarray"})
# Array functions (numpy, cupy, jax.numpy) whose result has the input's shape and dtype.
SHAPE_AND_DTYPE_PRESERVING = frozenset(
    {
        "abs",
        "absolute",
        "negative",
        "positive",
        "square",
        "copy",
        "ascontiguousarray",
        "clip",
        "flip",
        "fliplr",
        "flipud",
        "sign",
        "conj",
        "nan_to_num",
        "block_until_ready",
    }
)
# Array functions whose result has the input's shape, and its dtype when that is floating-point
# (NumPy, CuPy and jax.numpy alike; an integer input may come back as floats).
FLOAT_ELEMENTWISE = frozenset(
    {
        "tanh", "sinh", "cosh", "arctanh", "arcsinh", "arccosh", "sin", "cos", "tan", "arcsin", "arccos",
        "arctan", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "reciprocal",
        "floor", "ceil", "trunc", "rint", "round", "around", "maximum", "minimum", "fmax", "fmin",
        "add", "subtract", "multiply", "divide", "true_divide", "power", "hypot", "arctan2", "deg2rad",
        "rad2deg", "degrees", "radians", "erf", "sigmoid", "relu", "gelu", "softplus",
    }
)
# What exports a tensor to another library, beside DLPACK_BREAKERS: the array interfaces (NumPy's
# Dynamo traces; CuPy's by `__cuda_array_interface__` and JAX's it does not), and tensor methods.
ARRAY_EXPORTERS = frozenset(
    {"numpy.asarray", "numpy.array", "cupy.asarray", "cupy.array", "jax.numpy.asarray", "jax.numpy.array"}
)
EXPORT_METHODS = frozenset({"numpy", "__dlpack__"})
# torch's own capsule: consumed by the one from_dlpack that takes it.
CAPSULE_EXPORTERS = frozenset({"torch.utils.dlpack.to_dlpack", "torch.to_dlpack"})
# The calls of a round trip that only hand the data over (their leaf names).
CONVERSION_LEAVES = frozenset({"numpy", "array", "as_tensor", "from_numpy", "tensor", "block_until_ready", "get", "device_put"})
# Arithmetic operators: with a number, they keep a floating-point array's shape and dtype.
ARRAY_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)
