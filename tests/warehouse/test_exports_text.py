"""Atomic text writes of the exports (the HTML report goes through them)."""

import pytest

from warehouse.exports import write_text_atomic


def test_text_is_written_and_replaced_whole(tmp_path):
    target = tmp_path / "deep" / "report.html"
    assert write_text_atomic("<p>first ↑1</p>", target) == target
    assert target.read_bytes() == "<p>first ↑1</p>".encode()
    write_text_atomic("second", target)
    assert target.read_text(encoding="utf-8") == "second"
    assert [p.name for p in target.parent.iterdir()] == ["report.html"]


def test_a_failed_write_leaves_the_previous_file_and_no_temporary(tmp_path):
    target = tmp_path / "report.html"
    write_text_atomic("previous", target)
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic("half written \ud800 (a lone surrogate cannot be encoded)", target)
    assert target.read_text(encoding="utf-8") == "previous"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]
