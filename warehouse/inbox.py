"""The inbox of scheduled ingestion: new files in, processed and rejected files out.

An inbox is a folder users (or their scrapers) drop score dumps into.  Files
directly in it are new.  After a refresh each one is moved, never copied and
never deleted: into ``processed/`` when it was ingested (or was already in
the warehouse), into ``rejected/`` when it could not be parsed, so that a bad
file is reported once and is not retried forever.  A name that already exists
there gets a numeric suffix rather than overwriting the earlier file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scorehouse.aggregators.errors import NotFoundError
from scorehouse.warehouse.atomic import file_lock

PROCESSED = "processed"
REJECTED = "rejected"


def new_files(inbox: Path) -> list[Path]:
    """The files waiting in ``inbox`` (not in its subfolders, not hidden), sorted by name."""
    if not inbox.is_dir():
        raise NotFoundError(f"no inbox folder {inbox}; create it or pass another --inbox")
    return sorted(p for p in inbox.iterdir() if p.is_file() and not p.name.startswith("."))


def move_out(path: Path, inbox: Path, outcome: str) -> Path:
    """Move ``path`` into ``inbox/processed`` or ``inbox/rejected``; return where it went."""
    folder = inbox / (REJECTED if outcome == "rejected" else PROCESSED)
    folder.mkdir(exist_ok=True)
    target = folder / path.name
    suffix = 1
    while target.exists():
        target = folder / f"{path.stem}.{suffix}{path.suffix}"
        suffix += 1
    os.replace(path, target)
    return target


@contextmanager
def inbox_lock(inbox: Path) -> Iterator[None]:
    """One refresh of an inbox at a time: a scheduled run that starts while the
    previous one is still working waits for it, then finds nothing new."""
    with file_lock(inbox / ".refresh.lock"):
        yield
