"""Write aside, then rename; and the one file lock: how every file of scorehouse is put in place.

A file is written under a hidden temporary name next to its target
(``.<name>.<pid>.tmp``, on the same file system) and renamed onto the target
only once complete, so a reader sees the old file or the new one, never half
of one, and a crash leaves at most a stray ``.tmp`` file that no view reads.
A failed write removes its temporary file and leaves the target as it was.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:  # only an annotation here: the lock's users need not load Polars
    import polars as pl


def aside_path(target: Path) -> Path:
    """The hidden temporary name of this process next to ``target`` that it is written under."""
    return target.with_name(f".{target.name}.{os.getpid()}.tmp")


ASIDE_NAME = re.compile(r"\.(?P<target>.+)\.(?P<pid>\d+)\.tmp")


@contextmanager
def written_aside(target: Path) -> Iterator[Path]:
    """Yield a temporary path next to ``target``; rename it onto ``target`` once the block ends."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    aside = aside_path(target)
    aside.unlink(missing_ok=True)  # left by a crashed run that had the same process id
    try:
        yield aside
    except BaseException:
        aside.unlink(missing_ok=True)
        raise
    os.replace(aside, target)


def write_text(text: str, target: Path) -> Path:
    """Write ``text`` as UTF-8 to ``target``; return the path."""
    with written_aside(target) as aside:
        aside.write_text(text, encoding="utf-8")
    return Path(target)


def write_json(value: object, target: Path) -> Path:
    """Write ``value`` as indented JSON to ``target``; return the path."""
    return write_text(json.dumps(value, indent=1), target)


def write_parquet(frame: pl.DataFrame, target: Path) -> Path:
    """Write ``frame`` as Parquet to ``target``; return the path.

    zstd at level 1: a third faster to write than the default level, for files
    about a tenth larger (measured on 2M-score loads).
    """
    import polars as pl

    with written_aside(target) as aside:
        try:
            frame.write_parquet(aside, compression="zstd", compression_level=1)
        except pl.exceptions.ComputeError as error:  # Polars reports the system's I/O errors in its own exception
            failed = re.search(r"os error (\d+)", str(error))
            if failed is None:
                raise
            code = int(failed[1])
            raise OSError(code, os.strerror(code), str(target)) from error
    return Path(target)


def copy_file(source: Path, target: Path) -> Path:
    """Copy ``source`` byte for byte to ``target``; return the path."""
    return publish(copy_aside(source, target))


def copy_aside(source: Path, target: Path) -> Path:
    """Copy ``source`` byte for byte under ``target``'s aside name (:func:`aside_path`), to be renamed onto it
    by a later commit (:func:`publish`); return the aside path.  A failed copy leaves nothing."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    aside = aside_path(target)
    try:
        shutil.copyfile(source, aside)
    except BaseException:
        aside.unlink(missing_ok=True)
        raise
    return aside


def copy_hashed_aside(reader: BinaryIO, head: bytes, target_of: Callable[[str], Path], expected: str) -> str:
    """Copy ``head`` and the rest of ``reader`` byte for byte under the aside name (:func:`aside_path`) of
    ``target_of(sha)``, ``sha`` being the sha256 of the bytes copied, hashed as they are written; return ``sha``.

    ``head`` is what the caller read of the file already (it reads a file's start to know whether to hold it in memory
    or stream it).  One read of the file, and the hash is that of exactly the bytes copied (a hash then a copy read
    the file twice, and a file changed between them was archived under another file's hash).  The copy is written
    under the aside name of ``expected`` (the hash the caller read earlier) and renamed to its own when the bytes hash
    otherwise (the file changed since), or removed when the archive holds those other bytes already (the caller
    checks ``expected`` before copying).  A failed copy leaves nothing.
    """
    target = Path(target_of(expected))
    target.parent.mkdir(parents=True, exist_ok=True)
    aside = aside_path(target)
    digest = hashlib.sha256(head)
    try:
        with open(aside, "wb") as writer:
            writer.write(head)
            for block in iter(lambda: reader.read(1 << 20), b""):
                digest.update(block)
                writer.write(block)
    except BaseException:
        aside.unlink(missing_ok=True)
        raise
    sha = digest.hexdigest()
    if sha != expected:
        own = Path(target_of(sha))
        if own.exists():
            aside.unlink()
        else:
            own.parent.mkdir(parents=True, exist_ok=True)
            os.replace(aside, aside_path(own))
    return sha


def publish(aside: Path) -> Path:
    """Rename an aside file (:func:`aside_path`) onto its target; return the target."""
    target = aside.with_name(ASIDE_NAME.fullmatch(aside.name)["target"])
    os.replace(aside, target)
    return target


def remove_dead_asides(files: Iterable[Path]) -> None:
    """Remove the aside files (:func:`aside_path`) among ``files`` whose process no longer runs (it was killed
    between the write and the rename); a running process's are its own, to publish or remove."""
    for path in files:
        match = ASIDE_NAME.fullmatch(path.name)
        if match and not process_runs(int(match["pid"])):
            path.unlink(missing_ok=True)


def process_runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    return True


@contextmanager
def file_lock(path: Path, shared: bool = False, wait: bool = True) -> Iterator[bool]:
    """Hold a lock on ``path`` (created when missing) for the block; yield whether it was taken.

    An advisory ``flock``: it serialises the processes that take it, and the
    operating system releases it when its holder dies, so a crash never
    leaves the warehouse locked.  ``shared`` locks coexist with each other but
    not with an exclusive one; with ``wait=False`` the block runs at once and
    is told (``False``) when another process holds a conflicting lock.  A
    process that has to wait says so on stderr.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        try:
            fcntl.flock(handle, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                yield False
                return
            # say why nothing happens rather than hang in silence
            print(f"waiting for {path}: another scorehouse process holds it", file=sys.stderr, flush=True)
            fcntl.flock(handle, mode)
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_tree(files: dict[str, str], target: Path) -> Path:
    """Write a folder of UTF-8 files (relative path -> text) at ``target``, replacing the folder whole.

    The folder is written aside (``.<name>.<pid>.tmp``) and swapped in with two renames: the old
    folder is moved aside first, so a reader sees the old site or the new one, never a mixture.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    aside = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    old = target.with_name(f".{target.name}.{os.getpid()}.old")
    for stray in (aside, old):
        shutil.rmtree(stray, ignore_errors=True)
    try:
        for relative, text in files.items():
            path = aside / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    except BaseException:
        shutil.rmtree(aside, ignore_errors=True)
        raise
    if target.exists():
        os.replace(target, old)
    os.replace(aside, target)
    shutil.rmtree(old, ignore_errors=True)
    return target
