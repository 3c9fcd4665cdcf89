"""Only regular files are read; other entries are reported with what they are (issue 17, item 6)."""

import hashlib
import os
from pathlib import Path

from scorehouse.flows.ingest import expand_paths, ingest_flow
from tests.flows.conftest import VALUE
from tests.raw_layout import archived_bytes, raw_files


def test_fifo_devices_and_links_out_of_the_folder_are_skipped_with_what_they_are(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "good.csv").write_bytes(VALUE.read_bytes())
    os.mkfifo(folder / "pipe.csv")
    (folder / "zero.csv").symlink_to("/dev/zero")
    outside = tmp_path / "outside.csv"
    outside.write_text("not,scores\n")
    (folder / "out.csv").symlink_to(outside)
    (folder / "broken.csv").symlink_to(tmp_path / "missing")
    files, documents, skipped = expand_paths([folder])
    assert files == [folder / "good.csv"] and documents == []
    said = {Path(s.path).name: s.error for s in skipped}
    assert "a FIFO (named pipe)" in said["pipe.csv"]
    assert "leading out of" in said["zero.csv"]
    assert "leading out of" in said["out.csv"]
    assert "leading out of" in said["broken.csv"]
    zero = tmp_path / "zero.csv"
    zero.symlink_to("/dev/zero")
    assert expand_paths([zero])[0] == []
    assert "a character device" in expand_paths([zero])[2][0].error


def test_a_fifo_given_directly_is_skipped_and_does_not_hang(tmp_path):
    os.mkfifo(tmp_path / "pipe.csv")
    report = ingest_flow([str(tmp_path / "pipe.csv"), str(VALUE)], home=str(tmp_path / "home"))
    assert [f.status for f in report.files] == ["skipped", "loaded"]
    assert "FIFO" in report.files[0].error
    home = tmp_path / "home"
    assert archived_bytes(home) == {hashlib.sha256(VALUE.read_bytes()).hexdigest(): VALUE.read_bytes()}
    assert len(raw_files(home)) == 1  # the FIFO was never read: VALUE's pack only
