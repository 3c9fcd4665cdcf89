"""The raw archive takes a file's bytes in one read: hashed as they are copied aside (warehouse.storage.archive_raw)."""

import hashlib
import os
import threading

from scorehouse.warehouse.storage import Warehouse

BYTES = b'{"task_name": "STS12", "scores": {"test": [{"main_score": 0.5}]}}\n' * 40_000  # 2.6 MB: three blocks


def fed_once(path, data: bytes) -> threading.Thread:
    """A named pipe at ``path`` that gives ``data`` to its first reader only (a second read would wait forever)."""
    os.mkfifo(path)

    def feed() -> None:
        with open(path, "wb") as pipe:
            pipe.write(data)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return thread


def test_bytes_not_archived_yet_are_read_once_hashed_as_they_are_copied(tmp_path):
    """A named pipe can be read once: a hash and then a copy (two reads) could not archive it."""
    warehouse = Warehouse(tmp_path / "home")
    pipe = tmp_path / "result.json"
    feeder = fed_once(pipe, BYTES)
    sha = hashlib.sha256(BYTES).hexdigest()
    assert warehouse.archive_raw(pipe, sha) == sha
    feeder.join(timeout=10)
    warehouse.publish_raw([(sha, "result.json")])
    assert warehouse.raw_path(sha).name == f"{sha}.json"
    assert warehouse.raw_path(sha).read_bytes() == BYTES


def test_a_file_changed_since_its_plan_is_archived_under_the_hash_of_its_bytes(tmp_path):
    warehouse = Warehouse(tmp_path / "home")
    path = tmp_path / "result.json"
    path.write_bytes(BYTES)
    planned = hashlib.sha256(b"what the plan read before the file changed").hexdigest()
    sha = warehouse.archive_raw(path, planned)
    assert sha == hashlib.sha256(BYTES).hexdigest()
    assert warehouse.staged_copy(planned, path) is None and warehouse.staged_copy(sha, path) is not None
    warehouse.publish_raw([(sha, "result.json")])
    assert warehouse.raw_path(sha).read_bytes() == BYTES
    assert [p.name for p in (tmp_path / "home" / "raw").rglob("*") if p.is_file()] == [f"{sha}.json"]


def test_bytes_archived_already_are_hashed_and_not_copied_again(tmp_path):
    warehouse = Warehouse(tmp_path / "home")
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_bytes(BYTES)
    second.write_bytes(BYTES)
    sha = warehouse.archive_raw(first)
    warehouse.publish_raw([(sha, first)])
    archived = warehouse.raw_path(sha).stat()
    assert warehouse.archive_raw(second, sha) == sha
    assert warehouse.staged_copy(sha, second) is None
    assert warehouse.raw_path(sha).stat().st_mtime_ns == archived.st_mtime_ns
    second.write_bytes(BYTES + b"\n")  # changed after its plan hashed it: its own bytes archived under their hash
    changed = warehouse.archive_raw(second, sha)
    assert changed == hashlib.sha256(BYTES + b"\n").hexdigest() and warehouse.staged_copy(changed, second) is not None
