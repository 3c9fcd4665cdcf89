"""The 95% intervals ``rank`` stores in each snapshot of a method run, and the budget that decides which runs get them.

A snapshot of a method run stores, beside its ranking, the run's own bootstrap intervals
(``intervals.parquet``, :data:`warehouse.schema.SNAPSHOT_INTERVALS`): the voters resampled with
replacement :data:`RESAMPLES` times with seed :data:`SEED`, the method refitted on each resample
(:func:`transforms.rank_plan.ballot_intervals`, the function ``Warehouse.rank(intervals=True)`` runs too),
and the central :data:`CONFIDENCE` of each system's score and rank.  Computed once, when the snapshot is
written; a note of the snapshot says how (or why there is none).  These settings are part of the code
version (this module is among :data:`warehouse.snapshots.RANK_CODE`), so a snapshot's id fixes them.

Budget: a refit compares every pair of systems on every voter (or, batched, multiplies voters x
systems² tables), so a run costs about ``RESAMPLES x voters x systems²`` operations: 8.5e9 for WMT20's
60 systems x 11,824 instances took 2.6 s (docs/performance.md).  A run over :data:`BUDGET`, or whose
resampled pair tables (``RESAMPLES x systems²``) pass :data:`PAIR_CELLS`, stores no interval, and its
note says why: the 700 x 1,000 MTEB-shaped benchmark (9.8e10) is such a run.  So is a run whose
voter draws would not fit in memory (:data:`DRAW_CELLS`: a large instance-level benchmark, which the rank
reads partition by partition for that reason; with the budget, this bounds the ballots held too).  Exact ``kemeny`` is
refitted by a dynamic program up to 16 systems and by integer programs bounded by a time limit per fit
(200 x 5 s) beyond; it gets intervals up to :data:`KEMENY_SYSTEMS` systems only.

A battles snapshot (level ``battles``) stores the same, the battles resampled instead of the voters
(:func:`transforms.rank_plan.battle_intervals`, :func:`aggregators.bootstrap_battles`), on the battles its
selection kept with its both-bad rule.  Its cost is ``RESAMPLES`` x one fit, and a fit's cost depends on the
method's battles form (:func:`battles_unaffordable`): ``elo`` and ``trueskill`` replay every battle in order, one
Python step each (0.3 to 1.2 µs for elo, 1 to 3 µs for trueskill on the shared machine), so a run of over
:data:`BATTLE_GAMES` replayed battles stores none; ``bradley_terry`` fits all resamples from their pair counts, one
Newton solve of systems² per resample (2 to 3 ns x systems³ each with one BLAS thread, as the ``scorehouse``
command runs: 3.1 s for 200 systems), so a run over :data:`BATTLE_SOLVES` stores none (docs/performance.md,
``benchmarks/bench_battle_intervals.py``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import polars as pl

from scorehouse.aggregators.battle_ranking import battles_form
from scorehouse.aggregators.errors import AggregationError
from scorehouse.transforms.rank_plan import MethodRun, ballot_intervals, battle_intervals

RESAMPLES = 200  # five resamples in each 2.5% tail; the API's default of 1,000 would cost five times as much
SEED = 0
CONFIDENCE = 0.95
BUDGET = 2e10  # RESAMPLES x voters x systems²: about 6 s at WMT20's measured speed
PAIR_CELLS = 2e7  # RESAMPLES x systems² (three float tables of it: 0.5 GB); 316 systems at 200 resamples
# RESAMPLES x voters (the drawn voter indices and their multiplicities, 8 bytes each: 1 GB).  With BUDGET it also
# bounds the ballots held for the bootstrap (a partition-wise rank reads them whole): voters x systems is at most
# sqrt(BUDGET / RESAMPLES x DRAW_CELLS / RESAMPLES) = 5.5e6 cells.
DRAW_CELLS = 6e7
KEMENY_SYSTEMS = 12  # exact kemeny's dynamic program: 2^12 x 12² per refit
BATTLE_GAMES = 4e6  # RESAMPLES x battles replayed one by one (elo, trueskill): 20,000 battles; elo 1.3-4.6 s
BATTLE_SOLVES = 2e9  # RESAMPLES x systems³ (bradley_terry's Newton solves): 215 systems (200 took 3.1 s, 250 4.4 s)
NOTE = "intervals: "  # the prefix of the snapshot note that says whether and how its intervals were computed


def settings() -> dict[str, float | int]:
    """The bootstrap's options (:func:`aggregators.bootstrap`) for a snapshot's intervals."""
    return {"n_resamples": RESAMPLES, "seed": SEED, "level": CONFIDENCE}


def unaffordable(method: str, n_systems: int, n_voters: int) -> str | None:
    """Why a run of ``method`` on ``n_systems`` x ``n_voters`` gets no stored interval, or None when it gets one."""
    if method == "kemeny" and n_systems > KEMENY_SYSTEMS:
        return (f"exact kemeny on {n_systems} systems (over {KEMENY_SYSTEMS}) refits by integer programs bounded "
                f"by a time limit each, too slow for {RESAMPLES} resamples")
    cost = RESAMPLES * n_voters * n_systems**2
    if cost > BUDGET:
        return (f"{RESAMPLES} resamples of {n_systems} systems x {n_voters} voters cost {cost:.1e} operations, "
                f"over the rank's budget of {BUDGET:.0e} per method run")
    if RESAMPLES * n_systems**2 > PAIR_CELLS:
        return f"{RESAMPLES} resampled tables of {n_systems}² pairs would pass {PAIR_CELLS:.0e} cells"
    if RESAMPLES * n_voters > DRAW_CELLS:
        return f"{RESAMPLES} draws of {n_voters} voters would pass {DRAW_CELLS:.0e} drawn voters held in memory"
    return None


def battles_unaffordable(method: str, n_systems: int, n_battles: int) -> str | None:
    """Why a battles run of ``method`` (one with a battles form) on ``n_systems`` and ``n_battles`` gets no stored
    interval, or None when it gets one."""
    if battles_form(method).through == "sequence":
        if RESAMPLES * n_battles > BATTLE_GAMES:
            return (f"{method} replays the battles in order: {RESAMPLES} resamples of {n_battles} battles would "
                    f"replay {RESAMPLES * n_battles:.1e}, over the rank's budget of {BATTLE_GAMES:.0e} per method run")
        return None
    if RESAMPLES * n_systems**3 > BATTLE_SOLVES:
        return (f"{RESAMPLES} fits of {n_systems} systems cost {RESAMPLES * n_systems**3:.1e} operations "
                f"({RESAMPLES} x systems³), over the rank's budget of {BATTLE_SOLVES:.0e} per method run")
    return None


def none_stored(reason: str) -> str:
    """The snapshot note of a run that stores no interval, saying why."""
    return f"{NOTE}none stored: {reason}"


def snapshot_intervals(ballots: pl.DataFrame, level: str, method_run: MethodRun) -> tuple[pl.DataFrame | None, str]:
    """The intervals to store with the snapshot of ``method_run`` on ``ballots`` (its selected voters' ballots, as
    the run ranked them) with the settings' columns, or None when the bootstrap refuses them, and the note that
    says which.  The caller checked :func:`unaffordable` first."""
    return _stored(lambda: ballot_intervals(ballots, level, method_run, settings()), "voters")


def battle_snapshot_intervals(
    battles: pl.DataFrame, bothbad: str, method_run: MethodRun,
) -> tuple[pl.DataFrame | None, str]:
    """:func:`snapshot_intervals` of a battles run: on ``battles`` (those its selection kept) with its both-bad
    rule.  The caller checked :func:`battles_unaffordable` first."""
    return _stored(lambda: battle_intervals(battles, bothbad, method_run, settings()), "battles")


def _stored(bootstrap: Callable[[], pl.DataFrame], resampled: str) -> tuple[pl.DataFrame | None, str]:
    """The table ``bootstrap`` computes with the settings' columns, or None when it refuses, and the note; what is
    ``resampled`` (the voters, the battles) is said in the note."""
    try:
        with warnings.catch_warnings():
            # the refits' notes (a fit's convergence, kemeny's several optima) are the point ranking's to report
            warnings.simplefilter("ignore", RuntimeWarning)
            table = bootstrap()
    except AggregationError as error:
        return None, none_stored(f"the bootstrap refused the {resampled}: {error}")
    stored = table.with_columns(n_resamples=pl.lit(RESAMPLES), seed=pl.lit(SEED), confidence=pl.lit(CONFIDENCE))
    return stored, (f"{NOTE}{CONFIDENCE:.0%} bootstrap intervals of score and rank stored (intervals.parquet): "
                    f"{RESAMPLES} resamples of the {resampled}, seed {SEED}")
