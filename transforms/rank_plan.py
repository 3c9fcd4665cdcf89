"""Which methods a ranking run uses, with which parameters, on which ballots.

Defaults (what ``scorehouse rank`` runs when no ``--method`` is given) depend on the
data's shape; the choice is printed and recorded in each snapshot's notes
(:func:`default_note`: for ``complete`` data, ``missing scores``, ``battles with time
stamps`` or ``battles without time stamps``), not in its parameters, so a default run
and the same method asked for by name are one series of snapshots:

- task level, complete leaderboard: ``mean``, ``borda``, ``kemeny`` (exact, within
  a budget of :data:`DEFAULT_KEMENY_SECONDS`), ``copeland``, ``minimax``;
- task level with missing scores: ``mean`` (complete systems only), ``mean_adjusted`` (the mean over
  every voter, missing scores filled in by an additive voter + system model), ``borda_partial`` and
  ``bradley_terry`` over the systems scored on at least :data:`DEFAULT_MIN_COVERAGE` of
  the voters the best-covered system has (:class:`CoverageRule`; ``--min-coverage F`` asks
  for ``F`` of the selected voters instead; the others are listed in the notes, not ranked).  ``borda``, ``kemeny``, ``copeland`` and ``minimax`` are not
  defaults there: the first needs complete systems, and on sparse data the majority
  relation of the others ranked systems scored on few voters above better, well-covered
  ones (issue 26); asked for by name they run as before;
- instance level: ``mean`` two-step (the mean of the per-task means),
  ``borda`` one-level (every (task, metric, instance) votes), ``borda``
  two-level (Borda within each (task, metric), then across them),
  ``bradley_terry``, and ``borda_partial`` when scores are missing;
- battles (level ``battles``): ``bradley_terry`` (through the counts), and ``elo``
  (over the battles in the order they were fought) only when the battles have time
  stamps: without them their order is the file's, which Elo would depend on.

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
import math
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from scorehouse.aggregators import REGISTRY, RankingResult, bootstrap, bootstrap_battles, run
from scorehouse.aggregators.errors import AggregationError, InvalidParameterError
from scorehouse.transforms.ballots import ballots as make_ballots
from scorehouse.transforms.catalog import glob_regex
from scorehouse.warehouse.schema import BATTLE_LEVEL

TASK_DEFAULTS = ("mean", "borda", "kemeny", "copeland", "minimax")
# On a leaderboard with missing scores: the methods that handle them, over the systems with enough coverage.
SPARSE_TASK_DEFAULTS = ("mean", "mean_adjusted", "borda_partial", "bradley_terry")
# The share of the voters a system must be scored on to be ranked by default on a leaderboard with missing
# scores: at least half of what the best-covered system has, so that a system is compared on most of what the
# others are, and a leaderboard where nobody has every score (MTEB) still ranks someone.
DEFAULT_MIN_COVERAGE = 0.5
OF_VOTERS = "voters"  # --min-coverage F: F of the selected voters
OF_BEST_COVERED = "best-covered"  # the default: F of the voters the best-covered system is scored on


@dataclass(frozen=True)
class CoverageRule:
    """Who is ranked: the systems scored on at least ``share`` of the voters (``of`` :data:`OF_VOTERS`) or of the
    voters the best-covered system has (:data:`OF_BEST_COVERED`).  Recorded in the snapshot's parameters as
    ``min_coverage`` and ``min_coverage_of``; the threshold it resolves to on the data is in the notes."""

    share: float
    of: str = OF_VOTERS

    def threshold(self, n_voters: int, best: int) -> int:
        """The fewest voters a system must be scored on, given ``n_voters`` (weight > 0) and the ``best``
        coverage of a system: ``ceil(share x base)``, the one rule of the given and the default coverage."""
        base = n_voters if self.of == OF_VOTERS else best
        return math.ceil(self.share * base - 1e-9)  # 0.3 x 10 is 3.0000000000000004 in floating point

    def describe(self, n_voters: int, best: int) -> str:
        base = (f"the {n_voters} voters" if self.of == OF_VOTERS else f"the {best} voters the best-covered system "
                f"has" + (f" (of {n_voters})" if best != n_voters else ""))
        return f"--min-coverage {self.share:g} of {base}: at least {self.threshold(n_voters, best)}"

    @property
    def parameters(self) -> dict[str, Any]:
        return {"min_coverage": self.share, "min_coverage_of": self.of}


DEFAULT_COVERAGE = CoverageRule(DEFAULT_MIN_COVERAGE, OF_BEST_COVERED)  # on task-level leaderboards with missing scores
DEFAULT_KEMENY_SECONDS = 5.0
DEFAULT_PARAMS: dict[str, dict[str, Any]] = {"kemeny": {"time_limit": DEFAULT_KEMENY_SECONDS}}
INSTANCE_DEFAULTS: tuple[tuple[str, bool], ...] = (
    ("mean", True),
    ("borda", False),
    ("borda", True),
    ("bradley_terry", False),
)

BATTLE_DEFAULTS = ("bradley_terry",)
TIMED_BATTLE_DEFAULTS = ("bradley_terry", "elo")


class NotApplicable(AggregationError):
    """A method that needs complete ballots has no complete part to run on.

    Not a failure of the run: the benchmark is missing-by-design for it, and
    the methods that handle missing scores (``borda_partial``, the
    majority-relation rules) rank it instead.
    """


class NoSystemCovered(NotApplicable):
    """``--min-coverage`` leaves no system to rank: the run is skipped, saying the threshold and the best coverage."""


@dataclass(frozen=True)
class MethodRun:
    """One method to run: its registry name, parameters and two-step setting."""

    method: str
    params: dict[str, Any] = field(default_factory=dict)
    two_step: bool = False
    min_coverage: CoverageRule | None = None  # rank only the systems with this coverage (None: every system)
    defaults: str | None = None  # the shape of data this run is a default for (None: asked for by name)
    only: tuple[tuple[str, tuple[str, ...]], ...] = ()  # the voters selected: ("only_task", globs), ("only_metric", ...)

    @classmethod
    def asked(cls, method: str, params: dict[str, Any] | None = None, two_step: bool = False) -> MethodRun:
        """A run the user asked for by name: the rank command's defaults (:data:`DEFAULT_PARAMS`), then ``params``.

        So ``--method kemeny`` and the default run's kemeny are one run: one snapshot, one column.
        """
        return cls(method, {**DEFAULT_PARAMS.get(method, {}), **(params or {})}, two_step)

    @classmethod
    def from_parameters(cls, method: str, parameters: dict[str, Any]) -> MethodRun:
        """The run a snapshot's recorded ``parameters`` (:attr:`parameters`) describe."""
        params = dict(parameters)
        two_step = bool(params.pop("two_step", False))
        share = params.pop("min_coverage", None)
        # a snapshot recorded before the rule was written measured the share against the best-covered system
        of = params.pop("min_coverage_of", OF_BEST_COVERED)
        coverage = CoverageRule(share, of) if share is not None else None
        only = tuple((key, tuple(params.pop(key))) for key in ("only_task", "only_metric") if key in params)
        return cls(method, params, two_step, min_coverage=coverage, only=only)

    @property
    def label(self) -> str:
        """``kemeny``, ``borda (two-level)``, ``elo [k=16]``, ``mean [min_coverage=0.8, only_task=["m*"]]``: the
        parameters, the coverage rule and the voter selection only where they differ from the defaults."""
        defaults = command_defaults(self.method)
        changed = [f"{k}={json.dumps(v)}" for k, v in sorted(self.params.items()) if defaults.get(k, v) != v
                   or k not in defaults]
        if self.min_coverage not in (None, DEFAULT_COVERAGE):
            rule = self.min_coverage
            changed.append(f"min_coverage={rule.share:g}" + ("" if rule.of == OF_VOTERS else f" of {rule.of}"))
        changed += [f"{key}={json.dumps(list(globs))}" for key, globs in self.only]
        label = f"{self.method} (two-level)" if self.two_step else self.method
        return f"{label} [{', '.join(changed)}]" if changed else label

    @property
    def parameters(self) -> dict[str, Any]:
        """What the snapshot records as parameters: the ones given (the rank command's defaults included), and the
        settings of the run that are set.  Not the method's other defaults: on battles some differ (Elo's order)."""
        settings = {"two_step": self.two_step or None, **(self.min_coverage.parameters if self.min_coverage else {}),
                    **{key: list(globs) for key, globs in self.only}}
        return {**self.params, **{key: value for key, value in settings.items() if value is not None}}


def command_defaults(method: str) -> dict[str, Any]:
    """The parameters ``method`` runs with when none is given: its own, with the rank command's over them."""
    info = REGISTRY.get(method)
    return {**(dict(info.parameters) if info is not None else {}), **DEFAULT_PARAMS.get(method, {})}


# Elo over battles without time stamps: their order is the file's, so Elo averages this many seeded orders.
ELO_PERMUTATIONS = 20


def command_min_coverage(level: str, has_missing: bool, min_coverage: float | None) -> CoverageRule | None:
    """The coverage a run of the rank command needs: ``--min-coverage F`` (F of the selected voters, at any score
    level), else :data:`DEFAULT_MIN_COVERAGE` of the best-covered system's voters on a task-level leaderboard with
    missing scores (None: every system), for runs by default and by name alike."""
    if min_coverage is not None:
        return CoverageRule(check_min_coverage(min_coverage), OF_VOTERS)
    return DEFAULT_COVERAGE if level == "task" and has_missing else None


def with_min_coverage(runs: list[MethodRun], min_coverage: CoverageRule | None) -> list[MethodRun]:
    """The runs asked for by name, each ranking the systems with at least ``min_coverage`` (None: all)."""
    return [replace(r, min_coverage=min_coverage) for r in runs] if min_coverage is not None else runs


def elo_without_timestamps(method_run: MethodRun) -> tuple[MethodRun, str | None]:
    """An Elo run over battles without time stamps: over :data:`ELO_PERMUTATIONS` seeded orders (unless its
    order was set with ``elo.shuffle``), and the note that says so; any other run as it is."""
    if method_run.method != "elo" or "shuffle" in method_run.params:
        return method_run, None
    params = {"seed": 0, **method_run.params, "shuffle": True, "permutations": ELO_PERMUTATIONS}
    note = (f"the battles have no time stamps, so their order is only the file's: Elo averaged over "
            f"{ELO_PERMUTATIONS} orders drawn from seed {params['seed']} (elo.shuffle=false plays the file's order)")
    return replace(method_run, params=params), note


@dataclass(frozen=True)
class VoterSelection:
    """The voters to rank: those of the tasks and metrics matching ``tasks`` and ``metrics`` (globs; empty: all)."""

    tasks: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.tasks or self.metrics)

    def matches(self) -> pl.Expr:
        """Whether a row's task and metric match (true for every row of an empty selection)."""
        return pl.all_horizontal(
            pl.lit(True), *(pl.any_horizontal(pl.col(column).str.contains(glob_regex(g)) for g in globs)
                            for column, globs in (("task", self.tasks), ("metric", self.metrics)) if globs))

    def select(self, scores: pl.DataFrame) -> pl.DataFrame:
        """The rows of ``scores`` whose task and metric match."""
        return scores.filter(self.matches()) if self else scores

    def restrict(self, metrics: pl.DataFrame) -> pl.DataFrame:
        """The metric catalog ``metrics`` with the metrics left out of the selection not ranked: what the
        partition-wise rank makes its partitions dense with."""
        return metrics.with_columns(is_ranked=pl.col("is_ranked") & self.matches()) if self else metrics

    def tasks_of(self, metrics: pl.DataFrame) -> tuple[str, ...] | None:
        """The tasks of the catalog ``metrics`` with a selected, ranked metric (None: every task, no selection):
        the partition-wise rank plans and reads these only."""
        if not self:
            return None
        selected = metrics.filter(self.matches() & pl.col("is_ranked"))
        return tuple(sorted(selected.get_column("task").unique().to_list()))

    @classmethod
    def of(cls, method_run: MethodRun) -> VoterSelection:
        """The selection ``method_run`` records (:meth:`recorded_in`)."""
        only = dict(method_run.only)
        return cls(tuple(only.get("only_task", ())), tuple(only.get("only_metric", ())))

    def recorded_in(self, method_run: MethodRun) -> MethodRun:
        """``method_run`` with the selection in its parameters (so in its snapshot)."""
        only = tuple((key, globs) for key, globs in (("only_task", self.tasks), ("only_metric", self.metrics)) if globs)
        return replace(method_run, only=only) if only else method_run

    def nothing_selected(self) -> str:
        return (f"no score of a task matching {list(self.tasks) or 'any'} and a metric matching "
                f"{list(self.metrics) or 'any'} (--only-task, --only-metric)")


def default_note(method_run: MethodRun) -> tuple[str, ...]:
    """The note recording that ``method_run`` was chosen by default, and for which shape of data (none when
    it was asked for by name)."""
    return (f"a default method for {method_run.defaults} data",) if method_run.defaults else ()


def check_min_coverage(value: float) -> float:
    """``value`` when it is a share in [0, 1]; InvalidParameterError otherwise."""
    if not (isinstance(value, int | float) and 0.0 <= value <= 1.0):
        raise InvalidParameterError(f"--min-coverage must be a share of the voters in [0, 1], got {value!r}")
    return float(value)


def default_runs(
    level: str, has_missing: bool, min_coverage: float | None = None, timestamps: bool = False,
) -> list[MethodRun]:
    """The default methods for a benchmark of this level and shape (see the module docstring).

    ``min_coverage`` (``--min-coverage``; by default :func:`command_min_coverage`) applies to the runs on
    scores; ``timestamps`` says whether battles have time stamps.
    """
    if level == BATTLE_LEVEL:
        shape = "battles with time stamps" if timestamps else "battles without time stamps"
        return [MethodRun(m, defaults=shape) for m in (TIMED_BATTLE_DEFAULTS if timestamps else BATTLE_DEFAULTS)]
    shape = "missing scores" if has_missing else "complete"
    coverage = command_min_coverage(level, has_missing, min_coverage)
    if level == "task" and has_missing:
        runs = [MethodRun(m, min_coverage=coverage, defaults=shape) for m in SPARSE_TASK_DEFAULTS]
    elif level == "task":
        runs = [MethodRun(m, dict(DEFAULT_PARAMS.get(m, {})), min_coverage=coverage, defaults=shape)
                for m in TASK_DEFAULTS]
    else:
        runs = [MethodRun(m, two_step=two, min_coverage=coverage, defaults=shape) for m, two in INSTANCE_DEFAULTS]
        if has_missing:
            runs.append(MethodRun("borda_partial", min_coverage=coverage, defaults=shape))
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


def covered_systems(
    systems: pl.Series, scored: pl.Series, n_voters: int, rule: CoverageRule,
) -> tuple[pl.Series, tuple[str, ...]]:
    """The ``systems`` below ``rule`` (each scored on ``scored`` of the ``n_voters`` voters of weight > 0), and the
    note that records the resolved threshold and lists them with their coverage (they are listed, not ranked).
    The one place the rule is applied: the whole-table and the partition-wise ranks call it."""
    best = int(scored.max()) if scored.len() else 0
    needed = rule.threshold(n_voters, best)
    counts = pl.DataFrame({"system": systems, "scored": scored})
    low = counts.filter(pl.col("scored") < needed).sort("scored", "system", descending=[True, False])
    said = rule.describe(n_voters, best)
    if low.height and low.height == counts.height:
        raise NoSystemCovered(f"{said}, and no system is (the best-covered one is scored on {best}): nothing to "
                              f"rank; give a lower --min-coverage, or select more voters with --only-task")
    if low.height == 0:
        return low.get_column("system"), (f"{said}: every system has it",)
    listed = ", ".join(f"{s} ({k}/{n_voters})" for s, k in low.iter_rows())
    return low.get_column("system"), (f"{said}; not ranked: {low.height} system(s) scored on fewer: {listed}",)


def covered_ballots(ballots: pl.DataFrame, rule: CoverageRule) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """The ``ballots`` of the systems ``rule`` ranks (:func:`covered_systems`) and its note.

    A voter counts when it has weight > 0; a system is scored on a voter when its score there is not null.
    """
    counted = ballots.filter(pl.col("weight") > 0) if "weight" in ballots.columns else ballots
    voters = counted.get_column("voter").unique()
    coverage = ballots.group_by("system").agg(
        scored=pl.col("voter").filter(pl.col("score").is_not_null() & pl.col("voter").is_in(voters.implode())).n_unique()
    )
    low, notes = covered_systems(coverage.get_column("system"), coverage.get_column("scored"), voters.len(), rule)
    return (ballots.filter(~pl.col("system").is_in(low.implode())) if low.len() else ballots), notes


def ranked_ballots(ballots: pl.DataFrame, level: str, method_run: MethodRun) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """The ballots one method run ranks, and notes of what was left out: the systems with enough coverage, then
    the complete part for a method that needs it."""
    notes: tuple[str, ...] = ()
    if method_run.min_coverage is not None:
        ballots, covered = covered_ballots(ballots, method_run.min_coverage)
        notes += covered
    info = REGISTRY.get(method_run.method)
    if info is not None and not info.handles_missing:
        ballots, complete_notes = complete_ballots(ballots, level)
        notes += complete_notes
    return ballots, notes


def run_method(ballots: pl.DataFrame, level: str, method_run: MethodRun) -> RankingResult:
    """Rank ``ballots`` with one method run (:func:`ranked_ballots`, then the method).  Raises AggregationError
    (NotApplicable when there is nothing to rank)."""
    ballots, notes = ranked_ballots(ballots, level, method_run)
    result = run(method_run.method, ballots, two_step=method_run.two_step, params=method_run.params)
    return replace(result, notes=default_note(method_run) + notes + result.notes)



def ballot_intervals(ballots: pl.DataFrame, level: str, method_run: MethodRun, options: dict[str, Any]) -> pl.DataFrame:
    """Bootstrap intervals (:func:`aggregators.bootstrap`) of one method run on ``ballots`` (its selected voters'):
    of what :func:`ranked_ballots` keeps of them, as the run ranked them; ``options``: ``n_resamples``, ``level``,
    ``seed``.  The one bootstrap of a method run: the intervals a snapshot stores
    (:mod:`transforms.snapshot_intervals`) and the API's (``Warehouse.rank(intervals=True)``) both come from here."""
    ranked, _ = ranked_ballots(ballots, level, method_run)
    return bootstrap(method_run.method, ranked, two_step=method_run.two_step, **options, **method_run.params)


def battle_intervals(battles: pl.DataFrame, bothbad: str, method_run: MethodRun, options: dict[str, Any]) -> pl.DataFrame:
    """Bootstrap intervals (:func:`aggregators.bootstrap_battles`: the battles resampled) of one method run on
    ``battles`` (those its selection kept) with its both-bad rule, as the run ranked them.  The one bootstrap of a
    battles run: a battles snapshot's stored intervals and the API's both come from here."""
    return bootstrap_battles(method_run.method, battles, method_run.params, bothbad=bothbad, **options)


def run_intervals(
    scores: pl.DataFrame, metrics: pl.DataFrame, level: str, method_run: MethodRun, options: dict[str, Any],
) -> pl.DataFrame:
    """:func:`ballot_intervals` of one method run on the ballots of ``scores`` it selected (``only_task``,
    ``only_metric``), as the rank flow builds them."""
    selected = make_ballots(VoterSelection.of(method_run).select(scores), metrics, level=level).collect()
    return ballot_intervals(selected, level, method_run, options)
