# settings: select=ALL unsafe_fixes=true assume_compiled=true
import ctypes
import logging
import torch

logger = logging.getLogger(__name__)


def load():
    # found by the torch sweep: the loop and the try inside it must not be rewritten in one round
    lib: object  # bound in the unrolled loop below
    def _loop_body(lib_name):
        nonlocal lib
        try:
            lib = ctypes.CDLL(lib_name)
            if not torch.compiler.is_compiling():
                logger.debug("Loaded Windows C runtime: %s", lib_name)
            return ("return", lib)
        except OSError:
            return
    _flow = _loop_body("ucrtbase")
    if _flow is None:
        _flow = _loop_body("msvcrt")
    if _flow is not None:
        return _flow[1]
    raise RuntimeError("none")
