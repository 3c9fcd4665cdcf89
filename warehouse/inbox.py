"""The inbox of scheduled ingestion: new files in, processed and rejected files out.

An inbox is a folder users (or their scrapers) drop score dumps into.  Files
directly in it are new.  After a refresh each one is moved, never copied and
never deleted: into ``processed/`` when it was ingested (or was already in
the warehouse), into ``rejected/`` when it could not be parsed, so that a bad
file is reported once and is not retried forever.  A name that already exists
there gets a numeric suffix rather than overwriting the earlier file.

How to read a file can be given beside it (docs/inbox-mappings.md): a sidecar
``NAME.scorehouse.toml`` next to ``NAME``, or an entry of the inbox's own
``scorehouse.toml`` whose ``match`` glob matches the name (the sidecar wins).
Neither is a file to ingest; a sidecar moves out with its file.
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scorehouse.aggregators.errors import NotFoundError, ScorehouseError
from scorehouse.warehouse.atomic import file_lock

PROCESSED = "processed"
REJECTED = "rejected"
SIDECAR_SUFFIX = ".scorehouse.toml"  # NAME.scorehouse.toml: how to read NAME
INBOX_MAPPINGS = "scorehouse.toml"  # the inbox's own mappings: [[files]] entries with a ``match`` glob


class MappingFileError(ScorehouseError, ValueError):
    """A mapping file of an inbox that cannot be read as TOML of the documented form."""


def is_mapping_file(path: Path) -> bool:
    return path.name == INBOX_MAPPINGS or path.name.endswith(SIDECAR_SUFFIX)


def sidecar_of(path: Path) -> Path:
    return path.with_name(path.name + SIDECAR_SUFFIX)


def read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise MappingFileError(f"{path}: not valid TOML ({error}); see docs/inbox-mappings.md") from None


def file_mapping(path: Path, inbox: Path) -> tuple[Path, dict] | None:
    """How to read ``path``: (the TOML file that says it, its table), from its sidecar, else from the first entry
    of the inbox's ``scorehouse.toml`` whose ``match`` glob matches its name; None when neither says anything."""
    sidecar = sidecar_of(path)
    if sidecar.is_file():
        return sidecar, read_toml(sidecar)
    shared = inbox / INBOX_MAPPINGS
    if not shared.is_file():
        return None
    entries = read_toml(shared).get("files", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) and isinstance(e.get("match"), str) for e in entries):
        raise MappingFileError(f"{shared}: expected [[files]] entries, each with a match = \"GLOB\"; "
                               "see docs/inbox-mappings.md")
    entry = next((e for e in entries if fnmatch.fnmatchcase(path.name, e["match"])), None)
    return (shared, {k: v for k, v in entry.items() if k != "match"}) if entry is not None else None


def new_files(inbox: Path) -> list[Path]:
    """The files waiting in ``inbox`` (not in its subfolders, not hidden, not mapping files), sorted by name."""
    if not inbox.is_dir():
        raise NotFoundError(f"no inbox folder {inbox}; create it or pass another --inbox")
    return sorted(p for p in inbox.iterdir() if p.is_file() and not p.name.startswith(".") and not is_mapping_file(p))


def unread_folders(inbox: Path) -> list[str]:
    """What to say of each folder inside ``inbox`` (not hidden, not ``processed/`` or ``rejected/``): its files
    are not read, and are left where they are.  Reported rather than walked: a refresh moves each file it read
    out of the inbox, and a tree of folders has no place there (docs/formats.md, "The inbox")."""
    folders = sorted(p for p in inbox.iterdir() if p.is_dir() and not p.name.startswith(".")
                     and p.name not in (PROCESSED, REJECTED))
    return [f"{folder}: a folder inside the inbox; refresh reads only the files directly in the inbox: move its "
            f"files up, or ingest it with 'scorehouse ingest {folder}'" for folder in folders]


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
