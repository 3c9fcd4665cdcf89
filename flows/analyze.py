"""The analyze flow: robustness experiments and the disagreement report of one benchmark, stored as analyses.

For the benchmark (at task level): read the current scores (I/O, retried),
turn them into a dense profile (pure), run each asked experiment (pure,
:mod:`aggregators.robustness_*` and :mod:`aggregators.disagreement`), and
write its tables as an analysis (I/O, retried; an analysis with the same
inputs, parameters, seed and code already exists and is not written again).
The catalog is rebuilt once at the end when anything new was written.

Experiments that rank complete benchmarks (``agreement``, ``tasks``,
``scaling``) use the systems with a score on every voter, as the rank flow
does; ``missing`` uses every score, and its reference is each method's
ranking of the benchmark as it is.  ``synthetic`` needs no warehouse data:
it is stored under the benchmark name ``synthetic``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from scorehouse import runtime
from scorehouse.aggregators.errors import NotFoundError
from scorehouse.aggregators import REGISTRY, AggregationError, Profile, build_profile
from scorehouse.aggregators.disagreement import disagreement
from scorehouse.aggregators.robustness import method_scores, summarise
from scorehouse.aggregators.robustness_missing import DEFAULT_RATES, missing_scores
from scorehouse.aggregators.robustness_scaling import DEFAULT_FACTORS, rescaling
from scorehouse.aggregators.robustness_synthetic import synthetic_truth
from scorehouse.aggregators.robustness_tasks import task_subsets
from scorehouse.flows.catalog_state import ensure_current_catalog
from scorehouse.flows.common import refresh_catalog
from scorehouse.flows.progress import progress as progress_of
from scorehouse.flows.rank import read_benchmark
from scorehouse.transforms.ballots import ballots as make_ballots
from scorehouse.transforms.rank_plan import complete_ballots
from scorehouse.warehouse.analyses import AnalysisRequest, write_analysis
from scorehouse.warehouse.snapshots import canonical_parameters, code_version, input_fingerprint
from scorehouse.warehouse.storage import Warehouse

EXPERIMENTS = ("agreement", "tasks", "missing", "scaling")
LEVEL = "task"
DEFAULT_METHODS = ("mean", "median", "borda", "copeland", "minimax", "borda_partial")
SYNTHETIC = {"n_systems": 10, "n_voters": 15, "phis": [0.2, 0.5, 1.0], "corrupted_scale": 10.0}


@dataclass
class AnalysisOutcome:
    """One experiment's result on one benchmark."""

    experiment: str
    analysis_id: str
    new: bool
    tables: dict[str, pl.DataFrame]
    notes: list[str] = field(default_factory=list)


@runtime.step
def usable_methods(profile: Profile, methods: list[str], experiment: str) -> tuple[list[str], list[str]]:
    """The methods that rank this profile (a refusal becomes a note), and the notes."""
    kept, notes = [], []
    for method in methods:
        if experiment == "missing" and method != "mean" and not REGISTRY[method].handles_missing:
            notes.append(f"{method}: left out of the missing-scores experiment (needs complete scores)")
            continue
        if experiment == "missing" and method == "mean":
            kept.append(method)  # the mean over the observed cells, computed by the experiment itself
            continue
        try:
            method_scores(method, profile, {})
        except AggregationError as error:
            notes.append(f"{method}: left out: {error}")
            continue
        kept.append(method)
    return kept, notes


@runtime.step
def run_experiment(
    experiment: str, profile: Profile, methods: list[str], repetitions: int, seed: int
) -> dict[str, pl.DataFrame]:
    """The experiment's tables: results and summary, or the disagreement pairs and moves."""
    if experiment == "agreement":
        pairs, moves = disagreement(profile, {m: method_scores(m, profile, {}) for m in methods})
        return {"pairs": pairs, "moves": moves}
    if experiment == "tasks":
        results = task_subsets(profile, methods, repetitions=repetitions, seed=seed)
    elif experiment == "missing":
        results = missing_scores(profile, methods, rates=DEFAULT_RATES, repetitions=repetitions, seed=seed)
    elif experiment == "scaling":
        results = rescaling(profile, methods, factors=DEFAULT_FACTORS)
    else:
        results = synthetic_truth(
            methods, corrupted=range(0, SYNTHETIC["n_voters"] // 2 + 1), repetitions=repetitions, seed=seed,
            **{k: SYNTHETIC[k] for k in ("n_systems", "n_voters", "phis", "corrupted_scale")},
        )
    return {"results": results, "summary": summarise(results)}


@runtime.step(io=True)
def store_analysis(warehouse: Warehouse, request: AnalysisRequest, tables: dict[str, pl.DataFrame]) -> tuple[str, bool]:
    with warehouse.write_lock():
        return write_analysis(warehouse, request, tables)


def experiment_parameters(experiment: str, methods: list[str], repetitions: int, seed: int) -> dict:
    """What the analysis id hashes besides the data and the code."""
    parameters: dict = {"methods": methods}
    if experiment in ("tasks", "missing", "synthetic"):
        parameters |= {"repetitions": repetitions, "seed": seed}
    if experiment == "missing":
        parameters["rates"] = list(DEFAULT_RATES)
    if experiment == "scaling":
        parameters["factors"] = list(DEFAULT_FACTORS)
    if experiment == "synthetic":
        parameters |= SYNTHETIC
    return parameters


@runtime.flow("analyze")
def analyze_flow(
    benchmark: str,
    home: str | None = None,
    experiments: list[str] | None = None,
    methods: list[str] | None = None,
    repetitions: int = 100,
    seed: int = 0,
    progress: bool = False,
) -> list[AnalysisOutcome]:
    """Run the experiments on one benchmark and store each as an analysis; ``progress`` reports each one done."""
    warehouse = Warehouse(home)
    ensure_current_catalog(warehouse)  # never analyse a catalog that misses a committed load
    version = code_version()
    methods = list(methods or DEFAULT_METHODS)
    outcomes = []
    if benchmark == "synthetic":
        inputs = {"synthetic": (None, "none", ())}
        experiments = ["synthetic"]
    else:
        scores, metrics = runtime.call(read_benchmark, warehouse, benchmark, LEVEL)
        if scores.height == 0:
            raise NotFoundError(f"no task-level scores for benchmark {benchmark!r} in {warehouse.home}; see 'scorehouse sql'")
        ballots = make_ballots(scores, metrics, level=LEVEL).collect()
        complete, complete_notes = complete_ballots(ballots, LEVEL)
        load_ids = tuple(sorted(scores.get_column("load_id").unique().to_list()))
        fingerprint = input_fingerprint(list(load_ids), metrics)
        inputs = {
            "all": (build_profile(ballots), fingerprint, ()),
            "complete": (build_profile(complete) if complete.height else None, fingerprint, complete_notes),
        }
    chosen = list(experiments or EXPERIMENTS)
    with progress_of(f"analyze {benchmark}", len(chosen), progress) as done:
        for experiment in chosen:
            which = "synthetic" if experiment == "synthetic" else ("all" if experiment == "missing" else "complete")
            profile, fingerprint, data_notes = inputs[which]
            if experiment != "synthetic" and profile is None:
                outcomes.append(AnalysisOutcome(experiment, "", False, {}, ["no system has every score: nothing to rank"]))
                done(experiment)
                continue
            kept, notes = (methods, []) if profile is None else runtime.call(usable_methods, profile, methods, experiment)
            tables = runtime.call(run_experiment, experiment, profile, kept, repetitions, seed)
            request = AnalysisRequest(
                benchmark=benchmark,
                level=LEVEL,
                experiment=experiment,
                parameters=canonical_parameters(experiment_parameters(experiment, kept, repetitions, seed)),
                input_fingerprint=fingerprint,
                load_ids=() if benchmark == "synthetic" else load_ids,
                code_version=version,
                notes=tuple(data_notes) + tuple(notes),
            )
            analysis, new = runtime.call(store_analysis, warehouse, request, tables)
            outcomes.append(AnalysisOutcome(experiment, analysis, new, tables, list(data_notes) + notes))
            done(experiment)
    if any(o.new for o in outcomes):
        runtime.call(refresh_catalog, warehouse)
    return outcomes
