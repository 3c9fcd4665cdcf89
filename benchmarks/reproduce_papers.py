"""Every published number we can reproduce beside ours, with "match" or the cause; print Markdown.

    python -m benchmarks.reproduce_papers [--home DIR] [--repetitions 100] [--seed 0] > tables.md

The comparisons that the bundled Vote'n'Rank scrapes and the pairformance
example reproduce need nothing else (:mod:`benchmarks.published_bundled`),
nor do the reference code emulations of "What are the best systems?" (Tables
2 and 7, :mod:`benchmarks.colombo_reference_rule`) and of the missing-scores
paper (Table 1 and the Borda curves, :mod:`benchmarks.missing_reference_rule`).
With ``--home``, a warehouse holding the bundled dumps (``scorehouse ingest
data/bundled``) adds the comparisons on the other leaderboards: mean against
Borda (Colombo et al. 2022, Table 2) and the missing-score curves (Himmi et
al. 2023, read from the bundled ``task_level_correlations/*.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorehouse.aggregators import AggregationError, build_profile, kendall_tau, top_k_agreement  # noqa: E402
from scorehouse.aggregators.disagreement import disagreement  # noqa: E402
from scorehouse.aggregators.robustness import method_scores, summarise  # noqa: E402
from scorehouse.aggregators.robustness_missing import missing_scores  # noqa: E402
from benchmarks import colombo_reference_rule, missing_reference_rule  # noqa: E402
from benchmarks.published_bundled import report  # noqa: E402
from scorehouse.transforms.ballots import ballots  # noqa: E402
from scorehouse.transforms.rank_plan import complete_ballots  # noqa: E402
from scorehouse.warehouse.catalog import connect, query_frame  # noqa: E402
from scorehouse.warehouse.queries import benchmark_scores  # noqa: E402
from scorehouse.warehouse.storage import Warehouse  # noqa: E402

PUBLISHED = Path(__file__).resolve().parents[1] / "data/bundled/MissingDataRanking/task_level_correlations"
SHOWN_ETAS = (1, 2, 4, 8, 12, 16, 18)  # indices into the published grid of 20 rates
VOTE_N_RANK = ["borda", "copeland", "minimax", "plurality", "dowdall", "threshold", "baldwin"]
# "What are the best systems?" (Colombo et al. 2022), Table 2: Kendall tau between the mean and Borda.
PUBLISHED_TAU = {"glue-2022": 0.92, "superglue-2022": 0.91, "xtreme": 0.82}


def profile_of(
    warehouse: Warehouse, benchmark: str, complete: bool, systems: list[str] | None = None, unit_weights: bool = False
):
    """The benchmark's task-level profile; ``unit_weights``: every column a voter of weight 1, the own
    average and the diagnostics included (our reading of what the reference code of Colombo et al. read)."""
    scores, metrics = benchmark_scores(warehouse, benchmark, "task")
    if systems is not None:
        scores = scores.filter(pl.col("system").is_in(systems))
    frame = ballots(scores, metrics, level="task", include_unranked=unit_weights).collect()
    if unit_weights:
        frame = frame.with_columns(weight=pl.lit(1.0), group_weight=pl.lit(1.0))
    return build_profile(complete_ballots(frame, "task")[0] if complete else frame)


def systems_of_file(warehouse: Warehouse, name: str) -> list[str]:
    with connect(warehouse) as con:
        frame = query_frame(
            con,
            "SELECT DISTINCT h.system FROM scores_history h JOIN loads l USING (load_id) WHERE l.file_name LIKE ?",
            [f"%/{name}"],
        )
    return sorted(frame["system"].to_list())


def agreement_table(warehouse: Warehouse) -> list[str]:
    lines = ["| benchmark | protocol | systems | top-1 | top-3 | top-10 | Kendall tau | published tau |",
             "|---|---|---|---|---|---|---|---|"]
    for benchmark in ("glue", "glue-2022", "superglue", "superglue-2022", "xtreme"):
        for protocol, unit in (("ours", False), ("unit weights, every column", True)):
            profile = profile_of(warehouse, benchmark, complete=True, unit_weights=unit)
            mean = dict(zip(profile.systems, method_scores("mean", profile, {})))
            borda = dict(zip(profile.systems, method_scores("borda", profile, {})))
            tops = [f"{top_k_agreement(mean, borda, k):.2f}" if k <= len(mean) else "-" for k in (1, 3, 10)]
            published = PUBLISHED_TAU.get(benchmark)
            lines.append(f"| {benchmark} | {protocol} | {len(mean)} | {' | '.join(tops)} | {kendall_tau(mean, borda):.3f} "
                         f"| {'-' if published is None else published} |")
    return lines


def table7_ours(warehouse: Warehouse) -> list[str]:
    """Borda points and the mean of the top ten by Borda, under our protocol (Colombo et al. 2022, Table 7's shape)."""
    lines = []
    for benchmark in ("glue-2022", "superglue-2022", "xtreme"):
        profile = profile_of(warehouse, benchmark, complete=True)
        mean = method_scores("mean", profile, {})
        borda = method_scores("borda", profile, {})
        lines += [f"\n**{benchmark}** (ours: {len(profile.systems)} systems, {int((profile.weights > 0).sum())} voters)\n",
                  "| system | Borda (ours) | mean (ours) |", "|---|---|---|"]
        for i in np.argsort(-borda, kind="stable")[:10]:
            lines.append(f"| {profile.systems[i]} | {borda[i]:.1f} | {mean[i]:.3f} |")
    return lines


def published_curve(name: str, method: str) -> tuple[np.ndarray, np.ndarray]:
    data = json.loads((PUBLISHED / f"{name}.json").read_text())
    values = np.array([e["correlation"] for e in data["results"]["robustness"]["noise"][method]], dtype=float)
    return np.array(data["etas"]), np.nanmean(values.reshape(data["samples"], len(data["etas"])), axis=0)


def missing_table(warehouse: Warehouse, repetitions: int, seed: int) -> list[str]:
    cases = [("glue_filtered", "glue-2022", "glue_filtered.csv"), ("superglue_filtered", "superglue-2022", "superglue_filtered.csv"),
             ("xtrem_filtered", "xtreme", "xtrem_filtered.csv"), ("gem_filtered", "gem-avg", "gem_filtered.csv")]
    lines = []
    for name, benchmark, file_name in cases:
        systems = systems_of_file(warehouse, file_name)
        profile = profile_of(warehouse, benchmark, complete=False, systems=systems)
        etas, published_borda = published_curve(name, "one_level")
        _, published_mean = published_curve(name, "mean")
        rates = [float(etas[i]) for i in SHOWN_ETAS]
        summary = summarise(missing_scores(profile, ["borda_partial", "mean"], rates=rates, repetitions=repetitions, seed=seed,
                                                  unit="voter"))
        ours = {(m, round(s, 6)): t for m, s, t in summary.select("method", "setting", "tau_mean").iter_rows()}
        lines += [f"\n**{name}** ({benchmark}, {len(profile.systems)} systems x {int((profile.weights > 0).sum())} "
                  f"columns)\n",
                  "| eta | borda_partial (ours) | Borda (published) | mean (ours) | mean (published) |",
                  "|---|---|---|---|---|"]
        for i, rate in zip(SHOWN_ETAS, rates):
            row = [ours[("borda_partial", round(rate, 6))], published_borda[i], ours[("mean", round(rate, 6))], published_mean[i]]
            lines.append(f"| {rate:.2f} | " + " | ".join("n/a" if v is None or np.isnan(v) else f"{v:.3f}" for v in row) + " |")
    return lines


def vote_n_rank_table(warehouse: Warehouse) -> list[str]:
    lines = ["| benchmark | rule | winner | same winner as mean | Kendall tau to mean |", "|---|---|---|---|---|"]
    for benchmark in ("glue", "superglue", "value"):
        profile = profile_of(warehouse, benchmark, complete=True)
        scores = {"mean": method_scores("mean", profile, {})}
        for rule in VOTE_N_RANK:
            try:
                scores[rule] = method_scores(rule, profile, {})
            except AggregationError as error:
                lines.append(f"| {benchmark} | {rule} | not ranked: {str(error)[:60]}… | | |")
        pairs, _ = disagreement(profile, scores)
        for row in pairs.filter(pl.col("method_a") == "mean").iter_rows(named=True):
            lines.append(f"| {benchmark} | {row['method_b']} | {row['top1_b']} | {'no' if row['top1_differs'] else 'yes'} "
                         f"| {row['kendall_tau']:.3f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", help="a warehouse holding the bundled dumps; without it only the bundled comparisons")
    parser.add_argument("--repetitions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print("\n".join(report()))
    print("\n### What are the best systems? The reference code's Table 2 (Kendall tau of the mean against Borda) "
          "emulated, each of its departures undone alone, and its Table 7 Borda points\n")
    print("\n".join(colombo_reference_rule.report()))
    print("\n### Missing scores: the published Borda curves, the reference code's rule emulated, and ours "
          "(Kendall tau to the complete-data ranking, mean over the 100 published seeds)\n")
    print("\n".join(missing_reference_rule.report()))
    if args.home is None:
        return
    warehouse = Warehouse(args.home)
    print("\n### Mean versus Borda (top-k agreement and Kendall tau; Colombo et al. 2022, Table 2)\n")
    print("\n".join(agreement_table(warehouse)))
    print("\n### Table 7's Borda points under our protocol (top ten by Borda)\n")
    print("\n".join(table7_ours(warehouse)))
    print("\n### Robustness to missing scores (mean Kendall tau to the complete-data ranking)\n")
    print("\n".join(missing_table(warehouse, args.repetitions, args.seed)))
    print("\n### Vote'n'Rank rules against the mean\n")
    print("\n".join(vote_n_rank_table(warehouse)))


if __name__ == "__main__":
    main()
