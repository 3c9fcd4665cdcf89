"""Unterminated quotes and over-long fields are reported at the line where their record starts (issue 17, item 8),
an over-long field as the field limit it passes (issue 25), not as a quote never closed.

Every file is built line by line, so the expected line number is the position of
the offending line in that list, counted here and never by the code under test.
Both CSV paths are covered: the instance-level reader (:mod:`transforms.parsers.text`
via the instance-long format) and the leaderboard reader (``read_table``), plain and gzip.
"""

import csv
import gzip

import pytest

from scorehouse.transforms.parsers import instance_long
from scorehouse.transforms.parsers.base import ParseError
from scorehouse.transforms.parsers.input_limits import InputLimitError
from scorehouse.transforms.parsers.leaderboard_table import read_table

HEADER = "System,Utterance,score"


def instance_csv(path):
    return instance_long.parse(path, "test-benchmark")


READERS = {"instance": instance_csv, "leaderboard": read_table}


def write(tmp_path, lines, packed):
    data = "\n".join(lines).encode("utf-8") + b"\n"
    path = tmp_path / ("table.csv.gz" if packed else "table.csv")
    path.write_bytes(gzip.compress(data) if packed else data)
    return path


def unterminated_on_line_3():
    lines = [HEADER, "a,u1,1", 'b,"never closed,2']
    return lines + [f"{name},u,{i}" for i, name in enumerate("cdefg")], 3


def multiline_field_then_unterminated():
    lines = [HEADER, 'a,"spans', "four", "lines", 'here",1', "b,u2,2"]
    expected = len(lines) + 1
    lines += ['c,"never closed,3', "d,u4,4", "e,u5,5"]
    return lines, expected


def field_over_csv_limit_spanning_lines():
    """A quoted field on lines 4.. longer than the csv module's field limit, every line of it short."""
    chunk = "z" * 100
    pieces = csv.field_size_limit() // len(chunk) + 2
    lines = [HEADER, "a,u1,1", "b,u2,2", 'c,"' + chunk] + [chunk] * pieces + ['end",3', "d,u4,4"]
    return lines, 4


def malformed_quote_on_line_3():
    lines = [HEADER, "a,u1,1", 'b,"closed"then text,2', "c,u3,3", "d,u4,4"]
    return lines, 3


CASES = {
    "malformed quote on line 3": malformed_quote_on_line_3,
    "unterminated on line 3": unterminated_on_line_3,
    "multi-line field then unterminated": multiline_field_then_unterminated,
    "over-long field spanning lines": field_over_csv_limit_spanning_lines,
}


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("case", list(CASES))
def test_a_broken_record_is_reported_where_it_starts(tmp_path, case, reader, packed):
    lines, expected = CASES[case]()
    assert expected < len(lines) - 1, "the error must not be at the end of the file, or the test proves nothing"
    path = write(tmp_path, lines, packed)
    said = "field longer than 131,072 characters" if case == "over-long field spanning lines" else "in the record starting on this line"
    with pytest.raises(ParseError, match=said) as refused:
        READERS[reader](path)
    assert refused.value.line == expected


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("reader", list(READERS))
def test_a_field_over_the_line_limit_is_reported_on_its_line(tmp_path, monkeypatch, reader, packed):
    lines = [HEADER, "a,u1,1", "b,u2,2", 'c,"' + "z" * 80 + '",3', "d,u4,4", "e,u5,5"]
    monkeypatch.setenv("SCOREHOUSE_MAX_LINE_BYTES", "40")
    path = write(tmp_path, lines, packed)
    with pytest.raises(InputLimitError, match="SCOREHOUSE_MAX_LINE_BYTES") as refused:
        READERS[reader](path)
    assert refused.value.line == 4


@pytest.mark.parametrize("reader", list(READERS))
def test_a_closed_multiline_field_is_not_an_error(tmp_path, reader):
    """The control: the same files with the bad line removed are read."""
    lines, _ = multiline_field_then_unterminated()
    path = write(tmp_path, [line for line in lines if "never closed" not in line], packed=False)
    READERS[reader](path)
