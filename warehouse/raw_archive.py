"""The raw archive: every ingested file's bytes, byte for byte, found by their sha256.

Layout under ``<home>/raw``::

    packs/<batch>.parquet          the bytes of a committed batch's loads (:data:`RAW_PACK`), home format 3
    <sha[:2]>/<sha256><suffixes>   a file of its own: a file over :data:`PACKED_BYTES`, a battles load's, a
                                   rejected file's, and every file a home of format 2 or older archived

Why packs: a file of its own per input file is an inode created per input file, and on ext4 a create costs
0.09-0.85 ms of system CPU (more after recent deletions): some 20 s of a 172 s ingest of the MTEB results
repository, 104,000 small files (docs/performance.md).  A pack is one file per batch of up to 2,000.

How bytes get in: an ingest batch reads each of its files once into its :class:`RawStage`, hashed and held in
memory (bounded by the batch's bytes), or, over :data:`PACKED_BYTES`, streamed to a copy aside and never held.
The commit that names the bytes archives them.  A batch of loads writes its pack with its other files, renamed
into place before its manifest, and records the pack's content hash with theirs
(:meth:`warehouse.storage.Warehouse.write_loads`).  A battles load (a commit of one load) and a rejection (recorded
at once, not with the batch) keep a file of their own each: the layout older homes read, and one file either way.
Bytes the archive holds already are not archived again (:func:`archived_hashes`, read once per run).  A pack is a
batch file like the others: that of a batch that never committed is read by no lookup and removed by the next
writer (``remove_uncommitted``); one left aside by a killed run is removed by the next ingest (dead asides).

How bytes get out (:func:`stage_raw`): a file of its own first (older homes), then the packs of committed batches.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

import polars as pl

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.warehouse import atomic
from scorehouse.warehouse.integrity import sha256_of

# Files up to this size are held in memory and packed; a larger one is streamed to a file of its own (its inode
# costs nothing beside its bytes, and a Parquet cell or the memory of a batch is no place for gigabytes).  The same
# as the ingest's batch bytes (flows.ingest_plan.BATCH_BYTES): a batch holds at most that much.
PACKED_BYTES = 32 * 1024 * 1024
RAW_PACK: dict[str, pl.DataType] = {"sha256": pl.String(), "name": pl.String(), "bytes": pl.Binary()}


class RawMissingError(ScorehouseError, FileNotFoundError):
    """A load's archived bytes are not in the raw archive (deleted by hand): they cannot be re-parsed."""


def raw_target(home: Path, sha: str, name: str | Path) -> Path:
    """Where a file of its own keeps the bytes ``sha`` of a file named ``name``: by hash, with the name's last two
    suffixes when they are short (``.json``, ``.tsv.gz``)."""
    suffixes = "".join(Path(name).suffixes[-2:])
    return home / "raw" / sha[:2] / f"{sha}{suffixes if len(suffixes) <= 16 else ''}"


def pack_path(home: Path, batch: str) -> Path:
    return home / "raw" / "packs" / f"{batch}.parquet"


def committed_packs(home: Path, committed: frozenset[str]) -> list[Path]:
    """The packs of the ``committed`` batches: a pack of a batch without a manifest is not part of the archive."""
    return sorted(p for p in (home / "raw" / "packs").glob("*.parquet") if p.stem in committed)


def archived_hashes(home: Path, committed: frozenset[str]) -> frozenset[str]:
    """The sha256 of every file the archive holds: the names of the files of their own and the ``sha256`` column of
    the ``committed`` batches' packs.  A listing and a column per pack, read once per run, not a lookup per file."""
    own: set[str] = set()
    raw = home / "raw"
    if raw.is_dir():
        for folder in os.scandir(raw):
            if len(folder.name) == 2 and folder.is_dir():
                own.update(entry.name[:64] for entry in os.scandir(folder.path) if not entry.name.startswith("."))
    packed = scan_packs(committed_packs(home, committed), lambda rows: rows.select("sha256"))
    return frozenset(own.union(packed.get_column("sha256").to_list()))


def stage_raw(home: Path, sha: str, committed: frozenset[str], staged: Path) -> None:
    """Put the archived bytes ``sha`` at ``staged``: a symbolic link to their file of its own, else a copy of them
    from a pack of a ``committed`` batch, found by its ``sha256`` column and checked against the hash.  Raises
    :class:`RawMissingError` when neither holds them."""
    own = sorted((home / "raw" / sha[:2]).glob(f"{sha}*"))
    if own:
        staged.symlink_to(own[0])
        return
    found = scan_packs(committed_packs(home, committed), lambda rows: rows.filter(pl.col("sha256") == sha))
    for data in found.get_column("bytes").to_list():
        if hashlib.sha256(data).hexdigest() == sha:
            staged.write_bytes(data)
            return
    raise RawMissingError(f"the raw archive of {home} has no file with sha256 {sha} (or only a damaged pack of it); "
                          f"ingest the original file again")


def scan_packs(packs: list[Path], select: Callable[[pl.LazyFrame], pl.LazyFrame]) -> pl.DataFrame:
    """``select`` of the rows of ``packs`` (:data:`RAW_PACK`) in one scan, or, when that fails, of each pack that
    can be read: a damaged pack (named by the catalog's content check, :mod:`warehouse.integrity`) is passed over,
    so it neither stops an ingest nor serves bytes.  The filters and columns of ``select`` are pushed into the scan."""
    try:
        return select(pl.scan_parquet(packs, glob=False, schema=RAW_PACK)).collect()
    except (pl.exceptions.PolarsError, OSError):
        parts = [select(pl.scan_parquet([], glob=False, schema=RAW_PACK)).collect()]  # the columns, when none is read
        for pack in packs:
            try:
                parts.append(select(pl.scan_parquet(pack, glob=False, schema=RAW_PACK)).collect())
            except (pl.exceptions.PolarsError, OSError):
                continue
        return pl.concat(parts)


def read_up_to(reader: BinaryIO, limit: int) -> bytes:
    """The next ``limit`` bytes of ``reader``, fewer at its end (an unbuffered read may return fewer before it)."""
    blocks = []
    while limit > 0 and (block := reader.read(limit)):
        blocks.append(block)
        limit -= len(block)
    return b"".join(blocks)


class RawStage:
    """The bytes one ingest batch read for the archive, until the commit that names them archives them.

    ``archived``: the hashes the archive holds already (:func:`archived_hashes`), hashed on reading but not kept again.
    """

    def __init__(self, home: Path, archived: frozenset[str]) -> None:
        self.home = home
        self.archived = set(archived)
        self.held: dict[str, tuple[str, bytes]] = {}  # sha256 -> (file name, bytes) of files up to PACKED_BYTES
        self.read_at: dict[str, tuple[int, int]] = {}  # sha256 -> (mtime_ns, size) of the file when its bytes were read
        self.streamed: dict[str, Path] = {}  # sha256 -> the copy aside (a file of its own to be) of a larger file

    def take(self, path: Path, planned: str | None) -> str:
        """Read ``path`` once: hash its bytes and hold them, or stream a larger file to a copy aside; the sha256.

        ``planned`` is the hash the run's plan read.  A hash other than it says the file changed since: the caller
        rejects the file, and these bytes are kept under their own hash for the rejection.  A larger file the
        archive holds already is hashed only (a second read to copy it only when it changed since the plan).
        """
        if planned in self.archived and os.stat(path).st_size > PACKED_BYTES:
            sha = sha256_of(path)
            if sha == planned:
                return sha
        with open(path, "rb", buffering=0) as reader:  # unbuffered: no terminal check nor buffer per file
            stat = os.fstat(reader.fileno())
            head = read_up_to(reader, PACKED_BYTES + 1)
            if len(head) <= PACKED_BYTES:
                sha = hashlib.sha256(head).hexdigest()
                if sha not in self.archived:
                    self.held.setdefault(sha, (Path(path).name, head))
                    self.read_at.setdefault(sha, (stat.st_mtime_ns, stat.st_size))
                return sha
            expected = planned or sha256_of(path)
            sha = atomic.copy_hashed_aside(reader, head, lambda s: raw_target(self.home, s, path), expected)
        aside = atomic.aside_path(raw_target(self.home, sha, path))
        if aside.exists():  # else the archive holds those bytes as a file of their own already
            self.streamed[sha] = aside
        return sha

    def held_bytes(self, sha: str) -> tuple[bytes, int, int] | None:
        """The bytes ``sha`` held for the pack, with the file's modification time (ns) and size when they were read:
        a file read once is sniffed and parsed from them too.  None when not held (a larger file, or bytes the
        archive holds already): those are read from the file."""
        held = self.held.get(sha)
        return None if held is None else (held[1], *self.read_at[sha])

    def pack(self, batch: str, shas: Iterable[str]) -> list[Path]:
        """Archive the bytes ``shas`` (of a batch's loads): the held ones in the pack of ``batch``, written aside and
        renamed into place (returned, for the batch's content hashes; none when nothing was held), the larger ones'
        copies renamed into place.  The caller holds the write lock and writes the batch's manifest next."""
        wanted = list(dict.fromkeys(shas))
        self.keep(sha for sha in wanted if sha in self.streamed)
        rows = [(sha, *self.held[sha]) for sha in wanted if sha in self.held and sha not in self.archived]
        if not rows:
            return []
        frame = pl.DataFrame(dict(zip(RAW_PACK, zip(*rows, strict=True), strict=True)), schema=RAW_PACK)  # by column: 2x faster
        target = pack_path(self.home, batch)
        if target.exists():  # the batch committed before (a retried commit of the same loads): keep what it holds
            earlier = pl.read_parquet(target, glob=False)
            frame = pl.concat([earlier, frame.filter(~pl.col("sha256").is_in(earlier.get_column("sha256").implode()))])
        atomic.write_parquet(frame, target)
        self.archived.update(sha for sha, _, _ in rows)
        return [target]

    def keep(self, shas: Iterable[str]) -> None:
        """Archive the bytes ``shas`` each as a file of its own (a battles load, a rejection, a larger file): held
        bytes written aside and renamed into place, streamed copies renamed; bytes archived already are left."""
        for sha in shas:
            if sha in self.streamed:
                atomic.publish(self.streamed.pop(sha))
                self.archived.add(sha)
            elif sha in self.held and sha not in self.archived:
                name, data = self.held[sha]
                with atomic.written_aside(raw_target(self.home, sha, name)) as aside:
                    aside.write_bytes(data)
                self.archived.add(sha)

    def discard(self) -> None:
        """Drop what no commit archived: the held bytes, and the copies aside of larger files."""
        for aside in self.streamed.values():
            aside.unlink(missing_ok=True)
        self.streamed.clear()
        self.held.clear()
        self.read_at.clear()
