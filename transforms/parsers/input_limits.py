"""Reading an input file's bytes within documented limits, so hostile input cannot exhaust memory.

A gzip file of 65 KB can hold 64 MiB of newlines (a "gzip bomb"), and every
parser turns lines into rows, so input is streamed and checked before any
parser sees it.  Three limits, each overridable by an environment variable
(documented in the README, "Input limits"):

``SCOREHOUSE_MAX_INPUT_BYTES``
    the most bytes one file may hold once decompressed (default 4 GiB);
``SCOREHOUSE_MAX_GZIP_RATIO``
    the most a gzip file may expand, as decompressed / compressed size
    (default 100; the bundled WMT dumps expand about 5 times); any gzip file may
    expand to 1 MiB, so tiny repetitive files are never refused;
``SCOREHOUSE_MAX_LINE_BYTES``
    the most bytes one line may hold (default 16 MiB; the longest bundled line,
    a one-line JSON file, is 2.3 MB).

A file over a limit is a :class:`InputLimitError` (a :class:`ParseError`)
naming the file, the limit, and the variable that raises it.
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass
from pathlib import Path

from scorehouse.transforms.parsers.base import ParseError

GZIP_MAGIC = b"\x1f\x8b"
BLOCK_BYTES = 1 << 20
SMALL_GZIP_BYTES = 1 << 20  # what any gzip file may expand to, whatever its ratio


class InputLimitError(ParseError):
    """A file that exceeds one of the input limits: rejected by name, never read further."""


@dataclass(frozen=True)
class InputLimits:
    max_input_bytes: int = 4 << 30
    max_gzip_ratio: int = 100
    max_line_bytes: int = 16 << 20

    VARIABLES = {
        "max_input_bytes": "SCOREHOUSE_MAX_INPUT_BYTES",
        "max_gzip_ratio": "SCOREHOUSE_MAX_GZIP_RATIO",
        "max_line_bytes": "SCOREHOUSE_MAX_LINE_BYTES",
    }

    @classmethod
    def from_environment(cls) -> InputLimits:
        """The defaults, each overridden by its environment variable when set (a positive integer)."""
        values = {}
        for field, variable in cls.VARIABLES.items():
            text = os.environ.get(variable)
            if text is None:
                continue
            if not text.isdigit() or int(text) < 1:
                raise ValueError(f"${variable} must be a positive whole number of bytes (or a ratio), got {text!r}")
            values[field] = int(text)
        return cls(**values)


def _refuse(path: Path, what: str, field: str, line: int | None = None) -> InputLimitError:
    return InputLimitError(
        path, f"{what}; if the file is genuine, raise ${InputLimits.VARIABLES[field]}", line
    )


def read_input(path: Path, limits: InputLimits | None = None) -> bytes:
    """The bytes of ``path``, gunzipped when it starts with the gzip magic, within ``limits``.

    Decompressed block by block, so a bomb is refused after at most the allowed
    number of bytes, not after expanding in full.  Corrupt gzip data is a
    :class:`ParseError` too.
    """
    limits = limits or InputLimits.from_environment()
    size = path.stat().st_size
    with open(path, "rb") as handle:
        first = handle.read(BLOCK_BYTES)
        if first[:2] != GZIP_MAGIC:
            if size > limits.max_input_bytes:
                raise _refuse(path, f"{size} bytes, over the {limits.max_input_bytes}-byte input limit", "max_input_bytes")
            data = first + handle.read()
        else:
            data = _gunzip(path, handle, first, size, limits)
    _check_lines(path, data, limits.max_line_bytes)
    return data


def _gunzip(path: Path, handle, first: bytes, size: int, limits: InputLimits) -> bytes:  # noqa: ANN001
    cap = min(limits.max_input_bytes, max(limits.max_gzip_ratio * size, SMALL_GZIP_BYTES))
    field = "max_input_bytes" if cap == limits.max_input_bytes else "max_gzip_ratio"
    stream = zlib.decompressobj(16 + zlib.MAX_WBITS)
    parts: list[bytes] = []
    total = 0
    block = first
    try:
        while block:
            # Never more than one byte past the cap per call: a bomb stops at the cap.
            part = stream.decompress(block, cap + 1 - total)
            total += len(part)
            parts.append(part)
            if total > cap:
                raise _refuse(
                    path, f"decompresses to more than {cap} bytes ({size} bytes compressed; the limits are "
                    f"{limits.max_gzip_ratio}x the compressed size and {limits.max_input_bytes} bytes)", field,
                )
            block = stream.unconsumed_tail or handle.read(BLOCK_BYTES)
        if not stream.eof:
            raise zlib.error("the gzip stream is truncated")
    except zlib.error as exc:
        raise ParseError(path, f"corrupt gzip data ({exc}); re-download the file") from exc
    return b"".join(parts)


def _check_lines(path: Path, data: bytes, max_line: int) -> None:
    """InputLimitError at the first line longer than ``max_line`` bytes.

    Scanned in blocks of at most ``max_line`` bytes, so a line between two
    newlines of one block is never too long, and only runs that cross a block
    boundary need tracking.
    """
    block = min(max_line, BLOCK_BYTES)
    run = 0  # bytes since the last newline
    for start in range(0, len(data), block):
        chunk = data[start:start + block]
        first = chunk.find(b"\n")
        run += len(chunk) if first < 0 else first
        if run > max_line:
            line = data.count(b"\n", 0, start) + 1
            raise _refuse(path, f"a line longer than {max_line} bytes", "max_line_bytes", line)
        if first >= 0:
            run = len(chunk) - chunk.rfind(b"\n") - 1
