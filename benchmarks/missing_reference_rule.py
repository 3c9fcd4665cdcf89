"""The missing-scores paper's reference rule, emulated to show why its published Borda curve is lower than ours.

Himmi, Irurozki, Noiry, Clémençon and Colombo (2023), "Towards More Robust
NLP System Evaluation: Handling Missing Scores in Benchmarks",
arXiv:2305.10284, Figure 2; reference code AnasHimmi/MissingDataRanking
(``task_level_calculate_correlations.py``, ``partial_rankings.py``), whose
outputs are bundled as ``task_level_correlations/*_filtered.json``.

The rule as its outputs show it (described here, not copied): each column of
a ``data_task/*_filtered.csv`` (the own ``Score`` column too) ranks the
systems it scores, 0-based and ascending (rank 0 = lowest score), ties
averaged; a pair of systems then gets the number of compatible permutations
in which each comes first.  It departs from the paper's formula in three
ways, each a switch of :func:`reference_borda` so that its effect can be
measured alone:

* ``truncate``: the average rank of a tied observed system is truncated to
  an integer before the share ``(rank + 1) / (k + 1)`` of unobserved systems
  placed before it is computed;
* ``ties="later"``: a tie between two observed systems is not split: when the
  column is complete the later system (by ``Model``, the row order) comes
  first in every permutation; when it is not, the pair is counted as if the
  earlier system were unobserved;
* ``weights="permutations"``: a column counts its compatible permutations,
  ``n! / k!`` for ``k`` scored of ``n`` systems, instead of shares, so a column
  with more holes weighs more.

With the three switches off the rule is our ``borda_partial`` (tested).  The
masks are the reference's: for seed ``s``, ``numpy.random.seed(s)`` and, for
every rate eta in ``linspace(0, 1, 20)`` in turn, one draw of uniform numbers
over the table (``Model`` column included, never masked) compared with eta.
This module is a benchmark, never part of the library: the library keeps the
paper's formula.
"""

from __future__ import annotations

import json
from math import factorial
from pathlib import Path

import numpy as np
import polars as pl

from scorehouse.aggregators import build_profile
from scorehouse.aggregators.robustness import compare_batch
from scorehouse.aggregators.robustness_missing import PartialBorda

DATA = Path(__file__).resolve().parents[1] / "data/bundled/MissingDataRanking/data_task"
ETAS = np.linspace(0.0, 1.0, 20)  # the reference's grid of missing rates


def reference_table(name: str) -> tuple[list[str], np.ndarray]:
    """The systems (sorted by their raw ``Model`` text, as the reference sorts) and their scores (systems x columns)."""
    frame = pl.read_csv(DATA / f"{name}.csv", infer_schema=False).sort("Model", maintain_order=True)
    values = frame.drop("Model").select(pl.all().str.strip_chars().cast(pl.Float64))
    return frame.get_column("Model").to_list(), values.to_numpy()


def reference_masks(shape: tuple[int, int], seed: int) -> np.ndarray:
    """The reference's kept cells for one seed: (rate, system, column), drawn in its order.

    Exact until the first rate at which some system has no score left: from
    there on the reference's mean baseline draws from the same random stream
    to place that system (a shuffle we do not replay), so the later masks
    are other draws of the same distribution (see :func:`replayable`).
    """
    state = np.random.RandomState(seed)
    return np.stack([state.random_sample((shape[0], shape[1] + 1))[:, 1:] >= eta for eta in ETAS])


def replayable(masks: np.ndarray) -> np.ndarray:
    """Per rate of one seed's masks: True while no earlier rate left a system without any score."""
    emptied = (~masks.any(axis=2)).any(axis=1)
    return np.concatenate(([True], np.cumsum(emptied)[:-1] == 0))


def reference_borda(
    scores: np.ndarray, kept: np.ndarray, *, truncate: bool = True, ties: str = "later", weights: str = "permutations"
) -> np.ndarray:
    """Each system's count of being placed before the others, summed over columns, for a batch of masks.

    ``scores``: systems x columns; ``kept``: masks x systems x columns.  A
    lower count is a higher score (the reference's rank 0 is the lowest
    score).  ``ties="half"``, ``truncate=False`` and ``weights="shares"`` give
    the paper's formula.
    """
    n = scores.shape[0]
    x = np.where(kept, scores[None], np.nan).transpose(0, 2, 1)[..., :, None]  # masks x columns x system i x 1
    y = x.swapaxes(-1, -2)  # ... x 1 x system j
    seen_i, seen_j = ~np.isnan(x), ~np.isnan(y)
    k = seen_j.sum(axis=-1, keepdims=True)  # masks x columns x 1 x 1
    # 0-based average rank among the observed cells of the column
    rank = (seen_j & (y < x)).sum(axis=-1, keepdims=True) + ((seen_j & (y == x)).sum(axis=-1, keepdims=True) - 1) / 2.0
    if truncate:
        rank = np.floor(rank)
    with np.errstate(invalid="ignore", divide="ignore"):
        unseen_first = np.where(seen_i, (rank + 1.0) / (k + 1.0), np.nan)  # share of placements of one hole before i
    share_i, share_j = unseen_first, unseen_first.swapaxes(-1, -2)
    both = seen_i & seen_j
    tie = both & (x == y)
    # before[i, j]: share of compatible permutations placing i before j
    before = np.where(both, (x < y).astype(float), 0.0)
    before = np.where(seen_i & ~seen_j, 1.0 - share_i, before)
    before = np.where(~seen_i & seen_j, share_j, before)
    before = np.where(~seen_i & ~seen_j, 0.5, before)
    if ties == "later":
        later = np.arange(n)[None, :] > np.arange(n)[:, None]  # j after i
        full = k == n
        # i < j: i comes first only in the share the reference gives a hole before j (none when complete)
        tied = np.where(later, np.where(full, 0.0, share_j), np.where(full, 1.0, 1.0 - share_i))
        before = np.where(tie, tied, before)
    elif ties == "half":
        before = np.where(tie, 0.5, before)
    else:
        raise ValueError(f"ties must be 'later' or 'half', got {ties!r}")
    before = np.where(np.eye(n, dtype=bool), 0.0, before)
    if weights == "permutations":
        column_weight = np.vectorize(lambda count: factorial(n) / factorial(count))(k[..., 0, 0])
    elif weights == "shares":
        column_weight = np.ones(k.shape[:2])
    else:
        raise ValueError(f"weights must be 'permutations' or 'shares', got {weights!r}")
    return np.einsum("mc,mcij->mj", column_weight, before)


def reference_ranking(counts: np.ndarray) -> np.ndarray:
    """The reference's ranking vector of each row: 0-based average ranks of the counts, ascending."""
    less = (counts[:, None, :] < counts[:, :, None]).sum(axis=2)
    equal = (counts[:, None, :] == counts[:, :, None]).sum(axis=2)
    return less + (equal - 1) / 2.0


def published_samples(name: str, method: str = "one_level") -> tuple[np.ndarray, np.ndarray]:
    """The published per-sample (seed x rate) Kendall tau and rankings of one ``task_level_correlations`` file."""
    path = DATA.parent / "task_level_correlations" / f"{name}.json"
    data = json.loads(path.read_text())
    entries = data["results"]["robustness"]["noise"][method]
    shape = (data["samples"], len(data["etas"]))
    tau = np.array([e["correlation"] for e in entries], dtype=float).reshape(shape)
    rankings = np.array([e["ranking"] for e in entries], dtype=float).reshape(*shape, -1)
    return tau, rankings


def emulated_curve(name: str, seeds: int, **rule) -> tuple[np.ndarray, np.ndarray]:
    """Per (seed, rate): Kendall tau-b to the complete ranking, and the ranking, under the reference's masks."""
    _, scores = reference_table(name)
    complete = reference_ranking(reference_borda(scores, np.ones((1, *scores.shape), dtype=bool), **rule))[0]
    taus, rankings = [], []
    for seed in range(seeds):  # a loop over seeds: each seed is one draw of the reference's random stream
        ranking = reference_ranking(reference_borda(scores, reference_masks(scores.shape, seed), **rule))
        taus.append(compare_batch(-complete, -ranking)[0])
        rankings.append(ranking)
    return np.array(taus), np.array(rankings)


def matrix_profile(scores: np.ndarray):
    """The library's profile of a systems x columns matrix (system ``s000``… in row order, voter ``c000``… per
    column; a NaN cell is a missing score)."""
    n, columns = scores.shape
    ballots = pl.DataFrame({
        "voter": [f"c{c:03d}" for c in range(columns) for _ in range(n)],
        "system": [f"s{s:03d}" for _ in range(columns) for s in range(n)],
        "score": scores.T.ravel(),
    }).filter(pl.col("score").is_not_nan())
    return build_profile(ballots)


def library_borda_partial(scores: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Our ``borda_partial`` scores (higher is better) of the reference table under each mask, through the library."""
    fast = PartialBorda(matrix_profile(scores))
    return np.vstack([fast.scores(mask.T) for mask in kept])


# The curves shown side by side: the reference rule, ours, and each of the rule's departures alone.
VARIANTS = {
    "reference rule": {"truncate": True, "ties": "later", "weights": "permutations"},
    "ties to the later only": {"truncate": False, "ties": "later", "weights": "shares"},
    "truncation only": {"truncate": True, "ties": "half", "weights": "shares"},
    "n!/k! weights only": {"truncate": False, "ties": "half", "weights": "permutations"},
}
CASES = ("glue_filtered", "superglue_filtered", "xtrem_filtered", "gem_filtered")


def curves(name: str, seeds: int = 100) -> dict[str, np.ndarray]:
    """Per (seed, rate) Kendall tau of the published Borda, each variant and ours, all on the reference's masks."""
    _, scores = reference_table(name)
    published, _ = published_samples(name)
    taus = {"published": published[:seeds]}
    taus |= {label: emulated_curve(name, seeds, **rule)[0] for label, rule in VARIANTS.items()}
    complete = library_borda_partial(scores, np.ones((1, *scores.shape), dtype=bool))[0]
    taus["borda_partial (ours)"] = np.array(
        [compare_batch(complete, library_borda_partial(scores, reference_masks(scores.shape, seed)))[0] for seed in range(seeds)]
    )
    return taus


def agreement(name: str, seeds: int = 100) -> dict[str, object]:
    """How the emulated reference rule meets the published file: eta = 0 exactly, every replayable sample exactly."""
    _, scores = reference_table(name)
    _, published = published_samples(name)
    _, emulated = emulated_curve(name, seeds, **VARIANTS["reference rule"])
    _, fair = emulated_curve(name, 1, truncate=False, ties="half", weights="shares")
    replay = np.stack([replayable(reference_masks(scores.shape, seed)) for seed in range(seeds)])
    same = np.all(emulated == published[:seeds], axis=-1)
    return {
        "eta0_exact": bool(same[:, 0].all()),
        "eta0_ours_differs": bool((fair[0, 0] != published[0, 0]).any()),
        "replayable": int(replay.sum()),
        "replayable_exact": int(same[replay].sum()),
        "other": int((~replay).sum()),
        "other_exact": int(same[~replay].sum()),
    }


def _difference(published: np.ndarray, emulated: np.ndarray) -> tuple[float, float]:
    """Max over rates of |difference of the mean tau| and of that difference in standard errors.

    Rates where either side has fewer than two defined taus (eta = 1: every
    system tied) are left out.
    """
    counts_p, counts_e = np.sum(~np.isnan(published), axis=0), np.sum(~np.isnan(emulated), axis=0)
    rates = (counts_p > 1) & (counts_e > 1)
    published, emulated = published[:, rates], emulated[:, rates]
    gap = np.abs(np.nanmean(published, axis=0) - np.nanmean(emulated, axis=0))
    error = np.sqrt(np.nanvar(published, axis=0, ddof=1) / counts_p[rates]
                    + np.nanvar(emulated, axis=0, ddof=1) / counts_e[rates])
    z = np.divide(gap, error, out=np.zeros_like(gap), where=error > 0)
    return float(gap.max()), float(z.max())


def complete_data_tau(name: str) -> dict[str, float]:
    """Kendall tau-b between Borda (sigma_l) and the mean on the complete table: the reference outputs', the emulated
    rule's and ours.

    The reference files hold, at eta = 0, the complete-data ranking of both
    methods, so their tau is the reference code's own number for that
    comparison; the emulated rule must give it, and ours differs only where
    ties between observed systems decide.
    """
    _, scores = reference_table(name)
    _, borda = published_samples(name)
    _, mean = published_samples(name, "mean")
    everything = np.ones((1, *scores.shape), dtype=bool)
    emulated = reference_ranking(reference_borda(scores, everything))[0]
    ours = library_borda_partial(scores, everything)[0]
    row_mean = scores.mean(axis=1)
    return {
        "published": float(compare_batch(borda[0, 0], mean[0, 0][None])[0][0]),
        "emulated": float(compare_batch(emulated, row_mean[None])[0][0]),
        "ours": float(compare_batch(ours, row_mean[None])[0][0]),
    }


def report(shown: tuple[int, ...] = (1, 2, 4, 8, 12, 16, 18), seeds: int = 100) -> list[str]:
    """Markdown: for each bundled curve, the published Borda, the emulated reference rule, each departure and ours."""
    lines = ["Complete data: Kendall tau between Borda (sigma_l) and the mean (the comparison of the paper's Table 1).\n",
             "| file | reference outputs (eta = 0) | reference rule emulated | borda_partial (ours) |", "|---|---|---|---|"]
    for name in CASES:
        tau = complete_data_tau(name)
        lines.append(f"| {name} | {tau['published']:.3f} | {tau['emulated']:.3f} | {tau['ours']:.3f} |")
    for name in CASES:
        taus = curves(name, seeds)
        check = agreement(name, seeds)
        labels = list(taus)
        lines += [
            f"\n**{name}**: eta = 0 ranking {'equals' if check['eta0_exact'] else 'differs from'} the published one "
            f"exactly (our complete-data ranking {'differs' if check['eta0_ours_differs'] else 'is the same'}); "
            f"{check['replayable_exact']}/{check['replayable']} replayable (seed, eta) rankings equal the published "
            f"ones exactly, {check['other_exact']}/{check['other']} of the others (other masks).\n",
            "| eta | " + " | ".join(labels) + " |",
            "|---|" + "---|" * len(labels),
        ]
        means = {label: np.nanmean(tau[:, list(shown)], axis=0) for label, tau in taus.items()}
        for row, i in enumerate(shown):
            lines.append(f"| {ETAS[i]:.2f} | " + " | ".join(f"{means[label][row]:.3f}" for label in labels) + " |")
        gaps = [_difference(taus["published"], taus[label]) for label in labels[1:]]
        lines.append("| max abs diff to published (z) | - | "
                     + " | ".join(f"{gap:.3f} ({z:.1f})" for gap, z in gaps) + " |")
    return lines
