"""A file's head and format from the bytes an ingest batch holds are those read from the file itself."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorehouse.transforms.parsers import SNIFF_BYTES, choose_format, read_head
from tests.transforms.conftest import BUNDLED


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=3 * SNIFF_BYTES // 2), zipped=st.booleans(), cut=st.integers(0, 40))
def test_the_head_of_held_bytes_is_the_files(tmp_path_factory, data: bytes, zipped: bool, cut: int):
    if zipped:  # a gzip stream, whole or cut short (a truncated file shows what decompressed before the cut)
        data = gzip.compress(data)
        data = data[: len(data) - cut]
    path = tmp_path_factory.mktemp("head") / "file.gz"
    path.write_bytes(data)
    assert read_head(path, data) == read_head(path)


@pytest.mark.parametrize("path", sorted(p for p in BUNDLED.rglob("*") if p.is_file() and p.stat().st_size < 1 << 22)[::8])  # every 8th of 662
def test_bundled_files_get_the_same_format_from_their_held_bytes(path: Path):
    def outcome(data: bytes | None) -> str:
        try:
            return choose_format(path, trust_pickle=True, data=data).name
        except Exception as error:  # noqa: BLE001 - the refusal itself is compared
            return f"{type(error).__name__}: {error}"

    assert outcome(path.read_bytes()) == outcome(None)
