"""The refresh flow of scheduled ingestion, and serving it on a schedule.

``refresh_flow`` ingests the files waiting in an inbox, moves them out, and
re-ranks the benchmarks whose inputs changed; then, new files or not, it ranks
again every benchmark whose latest snapshots were not computed from its current
inputs (:func:`flows.rank.reconciled_warehouse`: a refresh killed between a
load's commit and its rank, a plain ``ingest``), so rankings always follow the
committed scores.  With ``reparse`` it also
re-derives the loads an older parser version made
(:func:`flows.ingest.reparse_stale`).  ``scorehouse serve`` serves it as a
Prefect deployment on a schedule (:mod:`scorehouse.serving`).  Runs of one
inbox never overlap: each holds the inbox's lock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


from scorehouse import runtime
from scorehouse.flows.ingest import (
    FileOutcome, declare_directions, ingest_files, log_outcome, refresh_catalog_after, reparse_stale,
)
from scorehouse.flows.lineage import lineage_notices, stale_loads
from scorehouse.flows.rank import BenchmarkOutcome, rank_flow, reconciled_warehouse
from scorehouse.reports.site.build import build_site
from scorehouse.transforms.parsers.mapping import FileSettings, MappingError, file_settings
from scorehouse.warehouse.inbox import (
    MappingFileError, file_mapping, inbox_lock, move_out, new_files, sidecar_of, unread_folders,
)
from scorehouse.warehouse.queries import latest_snapshot_ids
from scorehouse.warehouse.storage import Warehouse


@dataclass
class RefreshReport:
    files: list[FileOutcome] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    ranked: list[BenchmarkOutcome] = field(default_factory=list)
    reparsed: list[FileOutcome] = field(default_factory=list)  # loads re-derived from the raw archive
    stale_loads: int = 0  # current loads made by an older parser version, left as they are
    site: str | None = None  # the leaderboard site, when a ranking changed and one was asked for
    unread_folders: list[str] = field(default_factory=list)  # folders inside the inbox, not read: what to say of each

    @property
    def nothing_new(self) -> bool:
        return not self.files and not self.reparsed and not self.ranked

    @property
    def notices(self) -> list[str]:
        """Loads re-parsed, or left to an older parser."""
        return lineage_notices(sum(f.status == "loaded" for f in self.reparsed), self.stale_loads)


@runtime.step(io=True)
def move_file(path: Path, inbox: Path, status: str) -> str:
    return str(move_out(path, inbox, status))


@runtime.flow("refresh")
def refresh_flow(inbox: str, home: str | None = None, reparse: bool = False, site: str | None = None) -> RefreshReport:
    """Ingest what is new in ``inbox``, move it out, re-rank the benchmarks it changed.

    ``reparse`` also re-derives the loads an older parser version made, inbox or not.
    ``site``: a folder to rebuild the leaderboard site in when a ranking changed.
    """
    inbox_path = Path(inbox)
    with inbox_lock(inbox_path):
        return _refresh(inbox_path, home, reparse, site)


def rankings_changed(ranked: list[BenchmarkOutcome]) -> bool:
    """True when a method stored a new snapshot (unchanged inputs give the same snapshot, not a new one)."""
    return any(m.new for outcome in ranked for m in outcome.methods)


def _refresh(inbox_path: Path, home: str | None, reparse: bool, site: str | None = None) -> RefreshReport:
    files = new_files(inbox_path)
    report = RefreshReport(unread_folders=unread_folders(inbox_path))
    for said in report.unread_folders:
        runtime.log_warning(said)
    if not files and not reparse:
        return reconciled(report, home, site)
    warehouse = Warehouse(home)
    report.files = ingest_mapped(warehouse, inbox_path, files)
    if reparse:
        report.reparsed = reparse_stale(warehouse, trust_pickle=False)
    else:
        report.stale_loads = stale_loads(warehouse).height
    outcomes = report.files + report.reparsed
    refresh_catalog_after(warehouse, outcomes)
    log_outcome(outcomes)
    report.moved = [runtime.call(move_file, Path(f.path), inbox_path, f.status) for f in report.files]
    for f in report.files:  # a file's own mapping goes where the file went
        if sidecar_of(Path(f.path)).is_file():
            runtime.call(move_file, sidecar_of(Path(f.path)), inbox_path, f.status)
    changed = sorted({b for f in outcomes if f.status == "loaded" for b in f.benchmarks})
    if changed:
        report.ranked = runtime.run(rank_flow, home=home, benchmarks=changed)
    return reconciled(report, home, site)


def reconciled(report: RefreshReport, home: str | None, site: str | None) -> RefreshReport:
    """``report`` once every stale ranking is ranked again (whatever a crash left), and the site rebuilt if one changed."""
    report.ranked += reconciled_warehouse(home)
    if site is not None and rankings_changed(report.ranked):
        report.site = runtime.call(rebuild_site, Warehouse(home), Path(site))
    return report


@runtime.step(io=True)
def rebuild_site(warehouse: Warehouse, site: Path) -> str:
    """Write the leaderboard site of the latest snapshots to ``site`` (aside, then swapped in)."""
    return str(build_site(warehouse, latest_snapshot_ids(warehouse), site))


def settings_of(path: Path, inbox: Path) -> FileSettings | str:
    """How to read ``path`` of ``inbox`` (:func:`warehouse.inbox.file_mapping`), or why its mapping is unusable."""
    try:
        found = file_mapping(path, inbox)
        return FileSettings() if found is None else file_settings(*found)
    except (MappingFileError, MappingError) as error:
        return str(error)


def ingest_mapped(warehouse: Warehouse, inbox: Path, files: list[Path]) -> list[FileOutcome]:
    """Ingest the inbox's ``files``, each with the format, benchmark, columns and direction of its mapping
    (files that share settings together); a file whose mapping is unusable is rejected with the reason."""
    settings = {path: settings_of(path, inbox) for path in files}
    outcomes: dict[Path, FileOutcome] = {
        path: FileOutcome(str(path), "rejected", error=f"{path}: its mapping cannot be used: {said}")
        for path, said in settings.items() if isinstance(said, str)
    }
    groups: dict[FileSettings, list[Path]] = {}
    for path, said in settings.items():
        if not isinstance(said, str):
            groups.setdefault(said, []).append(path)
    for said, group in groups.items():
        done = ingest_files(warehouse, group, said.format, said.benchmark, False, progress=False, walked={p: p.name for p in group},
                            columns=said.mapping)
        if said.higher_is_better is not None:
            declare_directions(warehouse, done, said.higher_is_better)
        outcomes.update(zip(group, done, strict=True))
    return [outcomes[path] for path in files]
