"""Reading and writing Python source files without losing anything.

A file is read as bytes, checked (readable, not binary, not huge, decodable), and decoded with its
PEP 263 encoding; BOM and line endings survive because the text is encoded back the same way and
libcst keeps every newline as written. Writes go to a temporary file in the same directory that
replaces the original in one rename, with the original's permission bits.
"""

from __future__ import annotations

import codecs
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path

# Larger files are refused: generated code of this size is not worth a rewrite and
# parsing it would stall a worker.
MAX_FILE_BYTES = 10 * 1024 * 1024


class SourceError(Exception):
    """A file that cannot be processed; the message is one line for the user."""


@dataclass(frozen=True)
class SourceFile:
    path: str
    text: str
    encoding: str  # as Python names it; "utf-8-sig" when the file starts with a BOM

    def encode(self, text: str) -> bytes:
        return text.encode(self.encoding)


def decode_source(path: str, data: bytes) -> SourceFile:
    """Decode `data` the way the Python interpreter would, or raise SourceError."""
    if b"\0" in data:
        raise SourceError("binary file (contains NUL bytes)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise SourceError(f"cannot determine encoding: {exc.msg}") from None
    try:
        codecs.lookup(encoding)
        text = data.decode(encoding)
    except LookupError:
        raise SourceError(f"unknown encoding '{encoding}'") from None
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"cannot decode as {encoding}: invalid byte 0x{data[exc.start]:02x} at offset {exc.start}"
        ) from None
    return SourceFile(path=path, text=text, encoding=encoding)


def read_source(path: str) -> SourceFile:
    """Read and decode a file, with one-line errors for everything that can go wrong."""
    return decode_source(path, read_bytes(path))


def read_bytes(path: str) -> bytes:
    """A regular file's bytes, refusing directories, devices and huge files."""
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise SourceError("is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise SourceError("not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise SourceError(
                f"file too large ({info.st_size / 1e6:.1f} MB; the limit is {MAX_FILE_BYTES / 1e6:.0f} MB)"
            )
        with open(path, "rb") as handle:
            return handle.read()
    except SourceError:
        raise
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from None


def write_atomically(path: str, data: bytes) -> None:
    """Replace `path` with `data` in one rename, keeping the file's mode.

    Refuses read-only files: a rename would silently bypass the user's protection.
    """
    target = Path(path)
    try:
        info = os.stat(target)
    except OSError as exc:
        raise SourceError(f"cannot write: {exc.strerror or exc}") from None
    if not os.access(target, os.W_OK):
        raise SourceError("cannot write: file is read-only")
    # Resolve symlinks so the link stays a link and the file it points to is replaced.
    real = Path(os.path.realpath(target))
    fd, tmp_name = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".graphweld.tmp", dir=real.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, stat.S_IMODE(info.st_mode))
        os.replace(tmp_name, real)
    except OSError as exc:
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        raise SourceError(f"cannot write: {exc.strerror or exc}") from None
    except BaseException:
        # KeyboardInterrupt mid-write: the original is untouched; remove the partial temp file.
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        raise
