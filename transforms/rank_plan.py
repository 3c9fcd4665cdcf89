"""Which methods a ranking run uses, with which parameters, on which ballots.

Defaults (what ``scorehouse rank`` runs when no ``--method`` is given):

- task level: ``mean``, ``borda``, ``kemeny`` (exact, within a budget of
  :data:`DEFAULT_KEMENY_SECONDS`), ``copeland``, ``minimax``, and
  ``borda_partial`` when scores are missing;
- instance level: ``mean`` two-step (the mean of the per-task means),
  ``borda`` one-level (every (task, metric, instance) votes), ``borda``
  two-level (Borda within each (task, metric), then across them),
  ``bradley_terry``, and ``borda_partial`` when scores are missing;
- battles (level ``battles``): ``bradley_terry`` (through the counts) and
  ``elo`` (over the battles in the order they were fought).

A method that needs complete ballots is run on the complete part of them:
at task level the systems with a score on every voter (what Vote'n'Rank's
``dropna`` does), at instance level the voters that scored every system.
What was left out is recorded in the snapshot's notes.

Kemeny's budget.  Asked for by name, ``kemeny`` runs up to its own
``time_limit`` (60 s of CPU time, however busy the machine).  In the default run it gets
:data:`DEFAULT_KEMENY_SECONDS`, so that the defaults answer in seconds on any
benchmark: every bundled benchmark is proven optimal well within it (wmt20's
246 systems, the largest, in about 2.5 s), and a block that is not (an
MTEB-shaped benchmark of 700 systems, 90 % of the cells missing) gets the best
ranking found with its lower bound and gap in the notes (0.004 % there);
``--method kemeny --param kemeny.time_limit=60`` asks for the proof.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from scorehouse.aggregators import REGISTRY
from scorehouse.aggregators.errors import AggregationError, InvalidParameterError
from scorehouse.warehouse.schema import BATTLE_LEVEL

TASK_DEFAULTS = ("mean", "borda", "kemeny", "copeland", "minimax")
DEFAULT_KEMENY_SECONDS = 5.0
DEFAULT_PARAMS: dict[str, dict[str, Any]] = {"kemeny": {"time_limit": DEFAULT_KEMENY_SECONDS}}
INSTANCE_DEFAULTS: tuple[tuple[str, bool], ...] = (
    ("mean", True),
    ("borda", False),
    ("borda", True),
    ("bradley_terry", False),
)

BATTLE_DEFAULTS = ("bradley_terry", "elo")


class NotApplicable(AggregationError):
    """A method that needs complete ballots has no complete part to run on.

    Not a failure of the run: the benchmark is missing-by-design for it, and
    the methods that handle missing scores (``borda_partial``, the
    majority-relation rules) rank it instead.
    """


@dataclass(frozen=True)
class MethodRun:
    """One method to run: its registry name, parameters and two-step setting."""

    method: str
    params: dict[str, Any] = field(default_factory=dict)
    two_step: bool = False

    @property
    def label(self) -> str:
        return f"{self.method} (two-level)" if self.two_step else self.method

    @property
    def parameters(self) -> dict[str, Any]:
        """What the snapshot records as parameters: the method's, plus the two-step setting."""
        return {**self.params, "two_step": self.two_step} if self.two_step else dict(self.params)


def default_runs(level: str, has_missing: bool) -> list[MethodRun]:
    """The default methods for a benchmark of this level and shape (see the module docstring)."""
    if level == BATTLE_LEVEL:
        return [MethodRun(m) for m in BATTLE_DEFAULTS]
    if level == "task":
        runs = [MethodRun(m, dict(DEFAULT_PARAMS.get(m, {}))) for m in TASK_DEFAULTS]
    else:
        runs = [MethodRun(m, two_step=two) for m, two in INSTANCE_DEFAULTS]
    if has_missing:
        runs.append(MethodRun("borda_partial"))
    return [r for r in runs if r.method in REGISTRY]


def parse_parameters(items: list[str]) -> dict[str, dict[str, Any]]:
    """``["borda.ties=max", "elo.k=32"]`` → ``{"borda": {"ties": "max"}, "elo": {"k": 32}}``.

    Values are read as JSON when they parse (numbers, true/false, null), else as text.
    """
    parsed: dict[str, dict[str, Any]] = {}
    for item in items:
        name, sep, value = item.partition("=")
        method, dot, key = name.partition(".")
        if not sep or not dot or not method or not key:
            raise InvalidParameterError(f"--param must look like method.key=value, got {item!r}")
        try:
            parsed.setdefault(method, {})[key] = json.loads(value)
        except json.JSONDecodeError:
            parsed.setdefault(method, {})[key] = value
    return parsed


def complete_ballots(ballots: pl.DataFrame, level: str) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """The complete part of ``ballots`` and a note per thing left out (see the module docstring)."""
    # Counted from the scores that exist (a voters x systems grid would cost what a sparse benchmark does not have).
    whole, part = ("system", "voter") if level == "task" else ("voter", "system")
    n_parts = ballots.get_column(part).n_unique()
    scored = ballots.filter(pl.col("score").is_not_null()).group_by(whole).agg(pl.col(part).n_unique().alias("n"))
    complete = scored.filter(pl.col("n") == n_parts).get_column(whole)
    dropped = ballots.filter(~pl.col(whole).is_in(complete.implode())).get_column(whole).unique().sort()
    if dropped.len() == 0:
        return ballots, ()
    kept = ballots.filter(pl.col(whole).is_in(complete.implode()))
    if level == "task":
        note = f"complete systems only: left out {dropped.len()} system(s) with missing scores: " + ", ".join(dropped)
    else:
        note = f"complete voters only: left out {dropped.len()} voter(s) with missing scores"
    if kept.height == 0:
        raise NotApplicable(
            f"no {whole} has a score for every {'voter' if level == 'task' else 'system'}, so a method that "
            f"needs complete ballots has nothing to rank; borda_partial and the majority-relation rules handle it"
        )
    return kept, (note,)
