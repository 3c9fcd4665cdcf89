"""The raw archive (warehouse.raw_archive): each file's bytes read once, a batch's small files in one pack, a larger
file in a file of its own, and every committed file's bytes found again byte for byte."""

import hashlib
import io
import math
import os
import shutil
import threading

import pytest

from scorehouse.cli import main
from scorehouse.flows.ingest import ingest_flow
from scorehouse.warehouse.raw_archive import PACKED_BYTES, RawMissingError, read_up_to
from scorehouse.warehouse.storage import Warehouse
from tests.raw_layout import archived_bytes, committed, packs, raw_files
from tests.warehouse.conftest import BUNDLED, VALUE_CSV

BYTES = b'{"task_name": "STS12", "scores": {"test": [{"main_score": 0.5}]}}\n' * 40_000  # 2.6 MB: three blocks
LABSE = BUNDLED / "mteb-results-sample" / "results" / "sentence-transformers__LaBSE"


def sha_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fed_once(path, data: bytes) -> threading.Thread:
    """A named pipe at ``path`` that gives ``data`` to its first reader only (a second read would wait forever)."""
    os.mkfifo(path)

    def feed() -> None:
        with open(path, "wb") as pipe:
            pipe.write(data)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return thread


def staged_bytes(warehouse: Warehouse, sha: str) -> bytes:
    with warehouse.staged_raw(sha, "result.json") as staged:
        return staged.read_bytes()


def test_bytes_are_read_once_hashed_and_held_until_a_commit_keeps_them(tmp_path):
    """A named pipe can be read once: a hash and then a copy (two reads) could not archive it."""
    warehouse = Warehouse(tmp_path / "home")
    pipe = tmp_path / "result.json"
    feeder = fed_once(pipe, BYTES)
    assert warehouse.archive_raw(pipe, sha_of(BYTES)) == sha_of(BYTES)
    feeder.join(timeout=10)
    assert raw_files(tmp_path / "home") == []  # held in memory, nothing written yet
    warehouse.raw_stage.keep([sha_of(BYTES)])
    assert [p.name for p in raw_files(tmp_path / "home")] == [f"{sha_of(BYTES)}.json"]
    assert staged_bytes(warehouse, sha_of(BYTES)) == BYTES


def test_a_file_changed_since_its_plan_is_kept_under_the_hash_of_its_bytes(tmp_path):
    warehouse = Warehouse(tmp_path / "home")
    path = tmp_path / "result.json"
    path.write_bytes(BYTES)
    planned = sha_of(b"what the plan read before the file changed")
    assert warehouse.archive_raw(path, planned) == sha_of(BYTES)
    warehouse.record_rejected(str(path), sha_of(BYTES), None, "changed")  # what the ingest does with it
    assert archived_bytes(tmp_path / "home") == {sha_of(BYTES): BYTES}


def test_bytes_archived_already_are_hashed_and_not_kept_again(tmp_path):
    home = tmp_path / "home"
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_bytes(BYTES)
    second.write_bytes(BYTES)
    warehouse = Warehouse(home)
    warehouse.archive_raw(first)
    warehouse.raw_stage.keep([sha_of(BYTES)])
    before = raw_files(home)[0].stat()
    again = Warehouse(home).for_batch()  # a new batch reads what the archive holds
    assert again.archive_raw(second, sha_of(BYTES)) == sha_of(BYTES)
    assert again.raw_stage.pack("batch", [sha_of(BYTES)]) == []  # nothing held: no pack
    assert raw_files(home)[0].stat().st_mtime_ns == before.st_mtime_ns and len(raw_files(home)) == 1
    second.write_bytes(BYTES + b"\n")  # changed after its plan hashed it: its own bytes, held under their hash
    changed = again.archive_raw(second, sha_of(BYTES))
    assert changed == sha_of(BYTES + b"\n")
    again.raw_stage.keep([changed])
    assert archived_bytes(home) == {sha_of(BYTES): BYTES, changed: BYTES + b"\n"}


def test_a_file_over_the_pack_limit_is_streamed_to_a_file_of_its_own_never_packed(tmp_path):
    home = tmp_path / "home"
    big = tmp_path / "big.jsonl"
    data = b"x" * (PACKED_BYTES + 1)
    big.write_bytes(data)
    warehouse = Warehouse(home).for_batch()
    assert warehouse.archive_raw(big, sha_of(data)) == sha_of(data)
    [aside] = raw_files(home)  # streamed aside at once, not held
    assert aside.name.startswith(".") and aside.stat().st_size == len(data)
    assert warehouse.raw_stage.pack("batch", [sha_of(data)]) == []
    assert archived_bytes(home) == {sha_of(data): data}
    assert [p.name for p in raw_files(home)] == [f"{sha_of(data)}.jsonl"]


def test_an_ingest_of_many_small_files_makes_a_pack_per_batch_and_every_file_is_found_again(tmp_path):
    home = tmp_path / "home"
    files = sorted(p for p in LABSE.rglob("*") if p.is_file())
    report = ingest_flow([str(LABSE)], home=str(home), batch_files=10)
    assert report.ok and {f.status for f in report.files} == {"loaded"}
    assert len(raw_files(home)) == len(packs(home)) == math.ceil(len(files) / 10)  # not one file per input file
    assert {p.stem for p in packs(home)} <= committed(home)
    held = archived_bytes(home)
    assert {sha_of(p.read_bytes()): p.read_bytes() for p in files} == held
    warehouse = Warehouse(home)
    for path in files[::7]:  # the lookup the re-parse uses: the sha256 column first, then the bytes
        assert staged_bytes(warehouse, sha_of(path.read_bytes())) == path.read_bytes()


def test_a_pack_without_its_manifest_is_not_found_and_is_removed_by_the_next_writer(tmp_path):
    home = tmp_path / "home"
    path = tmp_path / "result.json"
    path.write_bytes(BYTES)
    warehouse = Warehouse(home).for_batch()
    warehouse.archive_raw(path, sha_of(BYTES))
    [pack] = warehouse.raw_stage.pack("never-committed", [sha_of(BYTES)])
    assert pack.exists()
    with pytest.raises(RawMissingError, match="no file with sha256"):
        staged_bytes(Warehouse(home), sha_of(BYTES))
    assert archived_bytes(home) == {} and Warehouse(home).archived_raw() == frozenset()
    Warehouse(home).remove_uncommitted()
    assert not pack.exists()


def test_a_damaged_pack_is_named_by_the_integrity_check_and_never_serves_other_bytes(tmp_path, capsys):
    """Its content hash is recorded with its batch's files: the next catalog rebuild names it (warehouse.integrity).
    A lookup serves a file's bytes only when they hash to what was asked: the pages the damage missed, or nothing."""
    home = tmp_path / "home"
    shutil.copytree(LABSE, tmp_path / "in")
    assert ingest_flow([str(tmp_path / "in")], home=str(home)).ok
    [pack] = packs(home)
    data = bytearray(pack.read_bytes())
    for place in range(len(data) // 8, len(data) * 7 // 8, 4096):
        data[place] ^= 0xFF  # same size, other bytes on every page of the bytes column
    stat = pack.stat()
    pack.write_bytes(bytes(data))
    os.utime(pack, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    capsys.readouterr()
    assert main(["--home", str(home), "ingest", str(VALUE_CSV)]) == 0  # its catalog rebuild checks the batch files
    assert str(pack) in capsys.readouterr().err
    assert main(["--home", str(home), "sql", "SELECT file FROM damaged_files", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [str(pack.relative_to(home))]
    refused = 0
    for path in sorted((tmp_path / "in").rglob("*.json")):
        try:
            assert staged_bytes(Warehouse(home), sha_of(path.read_bytes())) == path.read_bytes()
        except RawMissingError as error:
            assert "damaged pack" in str(error)
            refused += 1
    assert refused
    pack.write_bytes(bytes(data[: len(data) // 2]))  # truncated: no footer, nothing readable
    with pytest.raises(RawMissingError, match="damaged pack"):
        staged_bytes(Warehouse(home), sha_of(path.read_bytes()))
    assert staged_bytes(Warehouse(home), sha_of(VALUE_CSV.read_bytes())) == VALUE_CSV.read_bytes()  # its own pack
    table = tmp_path / "table.csv"
    table.write_text("model,dataset,acc\na,t,1\nb,t,2\n")
    assert main(["--home", str(home), "ingest", str(table), "--benchmark", "mine", "--system", "model",
                 "--task", "dataset", "--score", "acc"]) == 0  # an unreadable pack stops no ingest
    assert staged_bytes(Warehouse(home), sha_of(table.read_bytes())) == table.read_bytes()


def test_a_pack_written_again_for_a_committed_batch_keeps_what_it_held(tmp_path):
    """A commit retried after its manifest landed writes its batch's pack again: the bytes the first one holds stay."""
    home = tmp_path / "home"
    [loaded] = ingest_flow([str(VALUE_CSV)], home=str(home)).files
    [pack] = packs(home)
    assert pack.stem == loaded.load_id
    other = tmp_path / "result.json"
    other.write_bytes(BYTES)
    retried = Warehouse(home).for_batch(frozenset())  # as if the run read nothing archived
    retried.archive_raw(other, sha_of(BYTES))
    assert retried.raw_stage.pack(loaded.load_id, [sha_of(BYTES)]) == [pack]
    assert archived_bytes(home) == {sha_of(VALUE_CSV.read_bytes()): VALUE_CSV.read_bytes(), sha_of(BYTES): BYTES}


class ShortReads(io.RawIOBase):
    """A reader that returns at most 3 bytes a read, as an unbuffered read may."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        block, self.data = self.data[:min(size, 3)], self.data[min(size, 3):]
        return block


@pytest.mark.parametrize(("size", "limit"), [(0, 5), (4, 5), (5, 5), (11, 5), (11, 100)])
def test_read_up_to_reads_the_limit_through_short_reads(size: int, limit: int):
    data = bytes(range(size))
    reader = ShortReads(data)
    assert read_up_to(reader, limit) == data[:limit]
    assert reader.read(100) == data[limit:limit + 3]  # the rest left where it was
