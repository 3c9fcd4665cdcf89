"""The validation of an ingest batch: its files of scores validated together, battles each on its own, WMT
segment layouts checked against the stored ones, and a file whose every row was quarantined failed.

Pure but for the stored layouts and the rejection record (:mod:`warehouse.storage`); the batch is read by
:mod:`flows.ingest_read` and committed by :func:`flows.ingest.ingest_batch`.
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from scorehouse.transforms.parsers.base import Parsed
from scorehouse.transforms.segment_layouts import reconcile
from scorehouse.transforms.slices import repeated, runs
from scorehouse.transforms.validate import validate_loads
from scorehouse.transforms.validate_battles import ValidatedBattles, validate_battles
from scorehouse.flows.ingest_read import FileOutcome, ParsedFile
from scorehouse.warehouse.schema import QUARANTINE, SCORES
from scorehouse.warehouse.storage import LoadRecord, NewLoad, Warehouse


def fail_all_quarantined(warehouse: Warehouse, outcome: FileOutcome, record: LoadRecord) -> None:
    """A file whose every row was quarantined is a failure (``rejected``: exit 1), not "loaded": nothing of it can be
    ranked, so it was most likely read the wrong way (a numeric judgement without ``--winner-scale``).  Its rows stay
    in the quarantine view with their reasons."""
    reasons = ", ".join(f"{reason} ({n})" for reason, n in sorted(outcome.quarantine_reasons.items(), key=lambda r: -r[1]))
    view = "battles_quarantine" if outcome.format == "battles" else "quarantine"
    problem = f"every one of its {record.rows_quarantined} row(s) was quarantined: {reasons}; see the {view} view"
    warehouse.record_rejected(outcome.path, record.sha256, None, problem)
    outcome.status, outcome.error = "rejected", f"{outcome.path}: {problem}"


def reconciled_layouts(
    warehouse: Warehouse, scores: list[tuple[FileOutcome, ParsedFile]]
) -> list[tuple[FileOutcome, ParsedFile]]:
    """The WMT segment files among ``scores`` checked, in order, against the stored layouts and each other.

    What a disagreement does is :func:`transforms.segment_layouts.reconcile`'s rule; the outcome
    reports it.  A file is not checked against the loads of its own source, which it replaces
    (a corrected file must not be judged by the file it corrects).  Files numbered globally go
    first: their positions are what they say, where a file numbered per document infers them.
    """
    if not any(new.parsed.segment_layouts is not None for _, new in scores):
        return scores
    known = warehouse.segment_layouts()
    checked = list(scores)
    for index in sorted(range(len(scores)), key=lambda i: inferred_positions(scores[i][1].parsed)):
        outcome, new = scores[index]  # a loop over files: each is checked against the ones before it
        others = known.filter(pl.col("source") != new.record.source).drop("source")
        parsed, problems = reconcile(new.parsed, others)
        if parsed.segment_layouts is not None:
            mine = parsed.segment_layouts.with_columns(source=pl.lit(new.record.source))
            known = pl.concat([known.filter(pl.col("source") != new.record.source), mine])
        outcome.problems = outcome.problems + problems
        checked[index] = (outcome, replace(new, parsed=parsed))
    return checked


def inferred_positions(parsed: Parsed) -> bool:
    """Whether a file numbers some test set per document (its positions are inferred from its documents' order)."""
    layouts = parsed.segment_layouts
    return layouts is not None and bool((layouts.get_column("numbering") == "per-document").any())


def battle_load(new: ParsedFile) -> tuple[LoadRecord, ValidatedBattles]:
    """A file of battles validated: its manifest with the row counts, and its battles and quarantine."""
    checked = validate_battles(new.parsed.rows, file=new.record.file_name, load_id=new.record.load_id)
    return replace(new.record, rows_landed=checked.battles.height, rows_quarantined=checked.quarantine.height), checked


def validated_loads(parsed: list[ParsedFile]) -> list[NewLoad]:
    """The parsed files of scores validated together: their loads, with their manifests' row counts.

    Rows whose values are numbers (typed formats) and rows of text are validated apart: one value column each.
    """
    typed = [new.parsed.rows.schema["value"].is_float() for new in parsed]
    scores, quarantine = {}, {}
    for kind in set(typed):
        group = [new for new, t in zip(parsed, typed, strict=True) if t == kind]
        heights = [new.parsed.rows.height for new in group]
        # one chunk, not one per file: every step of the validation runs 10-30 % faster on contiguous columns
        rows = pl.concat([new.parsed.rows for new in group], how="diagonal_relaxed", rechunk=True).with_columns(
            # each load's name repeated over its rows: two columns for the batch, not two per file
            file=repeated(pl.Series([new.record.file_name for new in group], dtype=pl.String), heights),
            load_id=repeated(pl.Series([new.record.load_id for new in group], dtype=pl.String), heights),
        )
        checked = validate_loads(rows)  # in row order: each load's rows stay next to each other
        for frame, cut in ((checked.scores, scores), (checked.quarantine, quarantine)):
            cut.update({load: frame.slice(*at) for load, at in runs(frame.get_column("load_id")).items()})
    out = []
    no_scores, no_quarantine = pl.DataFrame(schema=SCORES), pl.DataFrame(schema=QUARANTINE)  # once, not per load
    for new in parsed:
        key = new.record.load_id
        landed, held = scores.get(key, no_scores), quarantine.get(key, no_quarantine)
        record = replace(new.record, rows_landed=landed.height, rows_quarantined=held.height)
        out.append(NewLoad(record, landed, held, new.read_at, new.parsed.systems, new.parsed.segment_layouts))
    return out
