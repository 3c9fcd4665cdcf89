"""Input limits (issue 17, item 3): checked against lengths counted independently with the standard library."""

import gzip

import pytest

from scorehouse.transforms.parsers.base import ParseError
from scorehouse.transforms.parsers.input_limits import InputLimitError, InputLimits, read_input


def test_plain_and_gzip_bytes_come_back_unchanged(tmp_path):
    data = b"a\tb\n" * 1000
    plain, packed = tmp_path / "x.txt", tmp_path / "x.txt.gz"
    plain.write_bytes(data)
    packed.write_bytes(gzip.compress(data))
    assert read_input(plain) == data
    assert read_input(packed) == data


@pytest.mark.parametrize("longest", [5, 6, 7, 12, 40])
@pytest.mark.parametrize("position", ["first", "middle", "last"])
def test_a_line_over_the_limit_is_refused_with_its_line_number(tmp_path, longest, position):
    lines = [b"x" * 3] * 9
    index = {"first": 0, "middle": 4, "last": 8}[position]
    lines[index] = b"y" * longest
    path = tmp_path / "f.txt"
    path.write_bytes(b"\n".join(lines) + b"\n")
    limits = InputLimits(max_line_bytes=6)
    if max(len(line) for line in lines) <= 6:
        assert read_input(path, limits) == path.read_bytes()
        return
    with pytest.raises(InputLimitError, match="SCOREHOUSE_MAX_LINE_BYTES") as refused:
        read_input(path, limits)
    assert refused.value.line == index + 1


def test_a_gzip_bomb_stops_at_the_ratio_and_a_small_file_never_does(tmp_path):
    bomb = tmp_path / "bomb.gz"
    bomb.write_bytes(gzip.compress(b"\n" * (8 << 20), compresslevel=9))
    with pytest.raises(InputLimitError, match="SCOREHOUSE_MAX_GZIP_RATIO"):
        read_input(bomb)
    small = tmp_path / "small.gz"
    small.write_bytes(gzip.compress(b"\n" * (1 << 19)))  # expands ~500x, but to less than 1 MiB
    assert read_input(small) == b"\n" * (1 << 19)


def test_the_size_limit_and_its_environment_variable(tmp_path, monkeypatch):
    path = tmp_path / "f.txt"
    path.write_bytes(b"abc\n" * 10)
    monkeypatch.setenv("SCOREHOUSE_MAX_INPUT_BYTES", "39")
    with pytest.raises(InputLimitError, match="40 bytes, over the 39-byte input limit"):
        read_input(path)
    monkeypatch.setenv("SCOREHOUSE_MAX_INPUT_BYTES", "40")
    assert read_input(path) == b"abc\n" * 10
    monkeypatch.setenv("SCOREHOUSE_MAX_INPUT_BYTES", "lots")
    with pytest.raises(ValueError, match="SCOREHOUSE_MAX_INPUT_BYTES must be a positive whole number"):
        read_input(path)


def test_truncated_gzip_is_a_parse_error(tmp_path):
    path = tmp_path / "cut.gz"
    path.write_bytes(gzip.compress(b"abc\n" * 1000)[:-20])
    with pytest.raises(ParseError, match="corrupt gzip data"):
        read_input(path)
