"""The one write-aside-then-rename helper and the one file lock (warehouse.atomic)."""

import fcntl
import threading
import time

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from scorehouse.warehouse import atomic
from scorehouse.warehouse.dumps import DumpFormatError, write_task_dump


def test_text_is_written_and_replaced_whole(tmp_path):
    target = tmp_path / "deep" / "report.html"
    assert atomic.write_text("<p>first ↑1</p>", target) == target
    assert target.read_bytes() == "<p>first ↑1</p>".encode()
    atomic.write_text("second", target)
    assert target.read_text(encoding="utf-8") == "second"
    assert [p.name for p in target.parent.iterdir()] == ["report.html"]


def test_a_failed_write_leaves_the_previous_file_and_no_temporary(tmp_path):
    target = tmp_path / "report.html"
    atomic.write_text("previous", target)
    with pytest.raises(UnicodeEncodeError):
        atomic.write_text("half written \ud800 (a lone surrogate cannot be encoded)", target)
    assert target.read_text(encoding="utf-8") == "previous"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_parquet_json_and_copies_land_whole(tmp_path):
    frame = pl.DataFrame({"system": ["a", "b"], "score": [1.5, None]})
    atomic.write_parquet(frame, tmp_path / "f.parquet")
    assert_frame_equal(pl.read_parquet(tmp_path / "f.parquet"), frame)
    atomic.write_json({"n": [1, 2]}, tmp_path / "f.json")
    assert (tmp_path / "f.json").read_text() == '{\n "n": [\n  1,\n  2\n ]\n}'
    atomic.copy_file(tmp_path / "f.parquet", tmp_path / "copy" / "g.parquet")
    assert (tmp_path / "copy" / "g.parquet").read_bytes() == (tmp_path / "f.parquet").read_bytes()
    assert not list(tmp_path.rglob("*.tmp"))


def test_the_lock_excludes_another_holder_until_released(tmp_path):
    path = tmp_path / "home" / ".lock"
    with atomic.file_lock(path), open(path) as other:
        with pytest.raises(BlockingIOError):  # a second open file description cannot take it
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with open(path) as other:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released: free again


def test_an_unknown_dump_format_is_refused_before_anything_is_written(tmp_path):
    with pytest.raises(DumpFormatError, match=r"unknown format\(s\) \['xlsx'\]"):
        write_task_dump(tmp_path, "synth-00", "t000", pl.DataFrame({"System": ["a"]}), ("csv", "xlsx"))
    assert not list(tmp_path.iterdir())


def test_a_writer_waiting_for_the_lock_says_so(tmp_path, capsys):
    """Issue 17, item 8: a blocked writer says what it waits for instead of hanging in silence."""
    path = tmp_path / "home" / ".lock"
    taken = threading.Event()

    def wait_for_the_lock() -> None:
        with atomic.file_lock(path):
            taken.set()

    with atomic.file_lock(path):
        waiter = threading.Thread(target=wait_for_the_lock)
        waiter.start()
        for _ in range(200):
            if "waiting for" in capsys.readouterr().err:
                break
            time.sleep(0.01)
        else:
            raise AssertionError("the waiting writer said nothing")
        assert not taken.is_set()
    waiter.join(timeout=10)
    assert taken.is_set()
    with atomic.file_lock(path):  # free: nothing said
        pass
    assert capsys.readouterr().err == ""
