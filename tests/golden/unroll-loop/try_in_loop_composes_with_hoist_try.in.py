# settings: select=ALL unsafe_fixes=true assume_compiled=true
import ctypes
import logging

logger = logging.getLogger(__name__)


def load():
    # found by the torch sweep: the loop and the try inside it must not be rewritten in one round
    for lib_name in ("ucrtbase", "msvcrt"):
        try:
            lib = ctypes.CDLL(lib_name)
            logger.debug("Loaded Windows C runtime: %s", lib_name)
            return lib
        except OSError:
            continue
    raise RuntimeError("none")
