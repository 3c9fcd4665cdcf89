"""sha256_of reads a file in blocks: its hash is hashlib's of the whole bytes, for empty, small and multi-block files."""

from __future__ import annotations

import hashlib
import os

import pytest

from scorehouse.warehouse.integrity import sha256_of


@pytest.mark.parametrize("size", [0, 1, 4096, (1 << 20) - 1, 1 << 20, (5 << 19) + 3])
def test_the_hash_of_the_whole_bytes(tmp_path, size: int):
    data = os.urandom(size)
    path = tmp_path / "file.bin"
    path.write_bytes(data)
    assert sha256_of(path) == hashlib.sha256(data).hexdigest()
