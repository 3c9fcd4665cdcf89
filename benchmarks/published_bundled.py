"""The papers' published numbers that the bundled files reproduce, beside ours: no warehouse needed.

Published numbers (facts, not code) come from the peers' own outputs:

* Vote'n'Rank (Rofin et al. 2023, EACL): the outputs stored in the notebooks
  ``case studies/CS1 - Reranking Leaderboards.ipynb`` (rankings of every rule on
  GLUE's first 30 rows, SuperGLUE and VALUE, with and without VALUE's Human
  row: the paper's Tables 3, 4, 9, 10, 11) and ``CS2 - Condorcet Search.ipynb``
  (the prospective systems) of PragmaticsLab/vote_and_rank.
* "Better than average" (Peyrard et al. 2021): the pairformance example's
  Bradley-Terry strengths and sign-test p-value (repository README; the
  shared data README's reference numbers).

Each comparison row says ``match`` or the cause of the difference.  The rules
are run as the reference code defines them: Borda ``n - max-rank``
(``ties="max"``), Plurality first places by max-rank (``ties="max"``), Dowdall
``1 / min-rank`` (``ties="min"``), Copeland wins minus losses, Minimax by
winning votes, the optimality gap with gamma = 95 and every column weighing 1
(the notebook's optimality gap ignores the weights the other rules get, so
the weight-0 diagnostics count and a split task counts twice).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import polars as pl

from scorehouse.aggregators import AggregationError, NonPositiveScoresError, aggregate, condorcet_weights, paired_tests, prospective_winners, run
from scorehouse.transforms.ballots import ballots
from scorehouse.transforms.catalog import check_rules, resolve_metrics
from scorehouse.transforms.parsers import parse_file
from scorehouse.transforms.rank_plan import complete_ballots
from scorehouse.transforms.validate import validate_rows

REPO = Path(__file__).resolve().parents[1]
TABLES = REPO / "data/bundled/vote_and_rank/tables"
RULES = REPO / "warehouse/defaults/metric_rules.csv"
PAIRFORMANCE = REPO / "data/bundled/pairformance/examples/dialogue_example_df.csv"

# The notebook's rules that ignore the leaderboard's weights: every column weighs 1 (found by search: with the
# weights, or without the weight-0 columns, no target reproduces GLUE's and SuperGLUE's printed gaps; with unit
# weights on every column, gamma = 95 gives all of them).
UNWEIGHTED_RULES = {"OG"}
# The notebook's rule names -> our method and the parameters that follow the reference code.
RULES_OF_VOTE_N_RANK = {
    "AM": ("mean", {}),
    "GM": ("geometric_mean", {}),
    "Borda": ("borda", {"ties": "max"}),
    "Plurality": ("plurality", {"ties": "max"}),
    "Dowdall": ("dowdall", {"ties": "min"}),
    "Copeland": ("copeland", {}),
    "Minimax": ("minimax", {}),
    "OG": ("optimality_gap", {"target": 95}),
}

# Top three of every rule as printed by CS1 (score: system); VALUE names as the notebook prints them.
PUBLISHED_TOP3 = {
    "GLUE (first 30 rows)": {
        "Plurality": [("ERNIE", 2.00), ("GLUE Human Baselines", 2.00), ("DeBERTa + CLEVER", 1.50)],
        "Copeland": [("ERNIE", 29.00), ("DeBERTa + CLEVER", 25.00), ("StructBERT + CLEVER", 24.00)],
        "Minimax": [("ERNIE", 0.00), ("DeBERTa + CLEVER", -5.50), ("DeBERTa / TuringNLRv4", -6.00)],
        "OG": [("ERNIE", -7.41), ("DeBERTa / TuringNLRv4", -7.54), ("MacALBERT + DKM", -7.56)],
        "Borda": [("ERNIE", 260.50), ("StructBERT + CLEVER", 256.00), ("DeBERTa + CLEVER", 247.50)],
        "Dowdall": [("ERNIE", 4.95), ("GLUE Human Baselines", 4.08), ("DeBERTa + CLEVER", 3.82)],
        "AM": [("ERNIE", 91.18), ("StructBERT + CLEVER", 91.07), ("DeBERTa + CLEVER", 90.88)],
        "GM": [("ERNIE", 90.89), ("StructBERT + CLEVER", 90.78), ("DeBERTa + CLEVER", 90.56)],
    },
    "SuperGLUE": {
        "Plurality": [("SuperGLUE Human Baselines", 4.00), ("ERNIE 3.0", 2.50),
                      ("T5 + UDG, Single Model (Google Brain)", 1.00)],
        "Copeland": [("SuperGLUE Human Baselines", 20.00), ("ERNIE 3.0", 19.00),
                     ("T5 + UDG, Single Model (Google Brain)", 18.00)],
        "Minimax": [("ERNIE 3.0", 0.00), ("SuperGLUE Human Baselines", 0.00),
                    ("T5 + UDG, Single Model (Google Brain)", -4.50)],
        "OG": [("ERNIE 3.0", -6.59), ("DeBERTa / TuringNLRv4", -6.76), ("T5 + UDG, Single Model (Google Brain)", -6.79)],
        "Borda": [("ERNIE 3.0", 155.00), ("T5 + UDG, Single Model (Google Brain)", 154.50),
                  ("DeBERTa / TuringNLRv4", 153.00)],
        "Dowdall": [("SuperGLUE Human Baselines", 4.98), ("ERNIE 3.0", 4.25),
                    ("T5 + UDG, Single Model (Google Brain)", 3.62)],
        "AM": [("ERNIE 3.0", 90.62), ("T5 + UDG, Single Model (Google Brain)", 90.39), ("DeBERTa / TuringNLRv4", 90.29)],
        "GM": [("ERNIE 3.0", 90.04), ("T5 + UDG, Single Model (Google Brain)", 89.84), ("DeBERTa / TuringNLRv4", 89.75)],
    },
    "VALUE (without Human)": {
        "Plurality": [("craig.starr", 9.00), ("DuKG", 1.00), ("HERO 1", 1.00)],
        "Copeland": [("craig.starr", 5.00), ("DuKG", 3.00), ("HERO 1", 1.00)],
        "Minimax": [("craig.starr", 0.00), ("DuKG", -10.00), ("HERO 1", -10.00)],
        "OG": [("craig.starr", -36.51), ("DuKG", -38.08), ("HERO 1", -39.86)],
        "Borda": [("craig.starr", 53.00), ("DuKG", 39.00), ("HERO 1", 30.00)],
        "Dowdall": [("craig.starr", 10.00), ("DuKG", 5.17), ("HERO 1", 4.08)],
        "AM": [("craig.starr", 62.87), ("DuKG", 60.00), ("HERO 1", 57.58)],
        "GM": [("craig.starr", 49.96), ("DuKG", 46.30), ("HERO 1", 44.12)],
    },
    "VALUE (with Human, missing scores)": {
        "Copeland": [("Human", 6.00), ("craig.starr", 4.00), ("DuKG", 2.00)],
        "Minimax": [("Human", 0.00), ("craig.starr", -6.00), ("DuKG", -10.00)],
    },
}
# Where our number differs, the cause (checked, not guessed, unless it says so).
KNOWN_CAUSES = {
    ("SuperGLUE", "GM"): "ours refuses a score of 0 on a counted task (CBoW, WARP); the reference gives such systems "
                         "NaN and ranks the rest, and on the rest ours matches (the numbers shown)",
}
PUBLISHED_VALUE_NAMES = {"craig.starr": "craig.starr (ensemble) Kakao Brain", "DuKG": "DuKG Baidu & KG",
                         "HERO 1": "HERO (AT->ST, PT+FT) VALUE baseline", "Human": "Human VALUE baseline"}
LEADERBOARDS = {
    "GLUE (first 30 rows)": ("leaderboards - GLUE.csv", 30, True),
    "SuperGLUE": ("leaderboards - SuperGLUE.csv", None, True),
    "VALUE (without Human)": ("leaderboards - VALUE.csv", None, True),
    "VALUE (with Human, missing scores)": ("leaderboards - VALUE.csv", None, False),
}
# CS1's geometric mean of every SuperGLUE system (None: the notebook prints NaN).
PRINTED_SUPERGLUE_GM = {
    "ERNIE 3.0": 90.04, "T5 + UDG, Single Model (Google Brain)": 89.84, "DeBERTa / TuringNLRv4": 89.75,
    "SuperGLUE Human Baselines": 88.80, "T5": 88.75, "NEZHA-Plus": 85.93, "PAI Albert": 85.38, "RoBERTa-iCETS": 85.36,
    "RoBERTa (ensemble)": 85.13, "RoBERTa-mtl-adv": 84.93, "RoBERTa": 83.73, "AILabs Team, Transformers": 82.04,
    "iPET (ALBERT) - Few-Shot (32 Examples)": 72.87, "Bort (Alexa AI)": 72.76, "BERT-mtl": 71.52, "BERT++": 69.30,
    "GPT-3 few-shot - OpenAI": 69.15, "BERT": 67.10, "ADAPET (ALBERT) - few-shot": None, "Most Frequent Class": None,
    "CBoW": None, "WARP (ALBERT-XXL-V2) - Few-Shot (32 Examples)": None,
}
# CS2: the prospective systems (weak Condorcet winners under some weights) and the rest, per leaderboard.
PUBLISHED_PROSPECTIVE = {"GLUE": (9, 88), "SuperGLUE": (10, 12), "VALUE": (3, 3)}
# pairformance: BT strengths (MM, eps 1e-9) of M0..M4 and the sign-test p-value of M0 against M1.
PUBLISHED_BT = (0.2483, 0.1436, 0.1648, 0.1497, 0.2937)
PUBLISHED_SIGN_P = 0.0273


def bundled_leaderboard(file_name: str, top: int | None, complete: bool) -> pl.DataFrame:
    """Task-level ballots of a bundled Vote'n'Rank scrape through the real path (parser, rules, ballots).

    ``top`` keeps the first rows (the notebook's ``head=30``); ``complete``
    drops systems with a missing cell, as the reference code's ``dropna``.
    """
    _, parsed = parse_file(TABLES / file_name)
    rows = parsed.rows if top is None else parsed.rows.filter(pl.col("line") <= top + 1)
    scores = validate_rows(rows, file=file_name, load_id="reproduce").scores
    rules = check_rules(pl.read_csv(RULES, infer_schema=False), str(RULES))
    table = ballots(scores, resolve_metrics(scores, rules), level="task").collect()
    return complete_ballots(table, "task")[0] if complete else table


def _ours(table: pl.DataFrame, rule: str) -> tuple[dict[str, float] | None, str]:
    """Our scores under the notebook's ``rule`` and a remark (see :func:`_scores`)."""
    method, params = RULES_OF_VOTE_N_RANK[rule]
    if rule in UNWEIGHTED_RULES:
        table = table.with_columns(weight=pl.lit(1.0), group_weight=pl.lit(1.0))
    return _scores(table, method, params)


def _scores(table: pl.DataFrame, method: str, params: dict) -> tuple[dict[str, float] | None, str]:
    """Our scores and a remark; a mean refused for a score <= 0 is rerun as the reference ranks.

    The reference code's geometric mean gives a system with a score <= 0 NaN
    and ranks the others: we rerun ours on those others to show the cause.
    """
    try:
        return dict(aggregate(method, table, **params).select("system", "score").iter_rows()), ""
    except NonPositiveScoresError as error:
        bad = table.filter((pl.col("score") <= 0) & (pl.col("weight") > 0)).get_column("system").unique().sort()
        kept = table.filter(~pl.col("system").is_in(bad.implode()))
        scores = dict(aggregate(method, kept, **params).select("system", "score").iter_rows())
        return scores, f"refused ({str(error).split(' (')[0]}); without {', '.join(bad)}: "
    except AggregationError as error:
        return None, f"refused: {str(error).split(';')[0]}"


def vote_n_rank_comparison() -> pl.DataFrame:
    """One row per (leaderboard, rule): the published top three, ours for the same systems, and the verdict."""
    rows = []
    for board, by_rule in PUBLISHED_TOP3.items():
        table = bundled_leaderboard(*LEADERBOARDS[board])
        for rule, published in by_rule.items():
            ours, remark = _ours(table, rule)
            names = [PUBLISHED_VALUE_NAMES.get(s, s) for s, _ in published]
            values = [] if ours is None else [round(ours[n], 2) for n in names]
            same = not remark and values == [round(p, 2) for _, p in published]
            rows.append({
                "leaderboard": board,
                "rule": rule,
                "published": "; ".join(f"{s} {p:.2f}" for s, p in published),
                "ours": remark + "; ".join(f"{v:.2f}" for v in values),
                "verdict": "match" if same else KNOWN_CAUSES.get((board, rule), "differs: cause not established"),
            })
    return pl.DataFrame(rows)


def superglue_means() -> pl.DataFrame:
    """Arithmetic, geometric and harmonic means of every SuperGLUE system, the geometric beside CS1's printed column.

    "How not to lie with a benchmark" (Shavrina and Malykh 2021) ranks
    SuperGLUE by these means in its Table 2, whose numbers are in no stored
    material; Vote'n'Rank's CS1 prints the geometric mean of every system
    (weights 0.5 for each half of a split task, 0 for the diagnostics), which
    is the reference compared here.  No stored output has a harmonic mean:
    ours is shown (tested against scipy).
    """
    table = bundled_leaderboard("leaderboards - SuperGLUE.csv", None, True)
    arithmetic, _ = _scores(table, "mean", {})
    geometric, _ = _scores(table, "geometric_mean", {})
    harmonic, _ = _scores(table, "harmonic_mean", {})
    weight_zero = table.filter((pl.col("score") <= 0) & (pl.col("weight") == 0)).get_column("system").unique()
    rows = []
    for system in sorted(arithmetic, key=lambda s: -arithmetic[s]):
        printed, ours = PRINTED_SUPERGLUE_GM[system], geometric.get(system)
        if printed is not None and ours is not None:
            verdict = "match" if round(ours, 2) == printed else "differs"
        elif printed is None and system in weight_zero.to_list() and ours is not None:
            verdict = "reference NaN: a score <= 0 on a weight-0 diagnostic, which ours leaves out"
        else:
            verdict = "both refuse: a score <= 0 on a counted task"
        rows.append({"system": system, "mean": round(arithmetic[system], 2),
                     "GM printed (CS1)": "NaN" if printed is None else f"{printed:.2f}",
                     "GM (ours)": "refused" if ours is None else f"{ours:.2f}",
                     "HM (ours)": "refused" if system not in harmonic else f"{harmonic[system]:.2f}",
                     "verdict": verdict})
    return pl.DataFrame(rows)


def prospective_comparison() -> pl.DataFrame:
    """Prospective / non-prospective counts, ours (weak, the paper's Eq. 2; and strict) beside the paper's."""
    rows = []
    for board, (yes, no) in PUBLISHED_PROSPECTIVE.items():
        table = bundled_leaderboard(f"leaderboards - {board}.csv", None, True)
        n = table.get_column("system").n_unique()
        weak, strict = (prospective_winners(table, margin=m).height for m in ("weak", "strict"))
        rows.append({"leaderboard": board, "published": f"{yes}/{no}", "ours (weak)": f"{weak}/{n - weak}",
                     "ours (strict)": f"{strict}/{n - strict}",
                     "verdict": "match" if (weak, n - weak) == (yes, no) else "differs"})
    return pl.DataFrame(rows)


def t5_example() -> str:
    """SuperGLUE with BoolQ and MultiRC-EM at 0.5 each: is T5 a Condorcet winner (weak / strict)?"""
    table = bundled_leaderboard("leaderboards - SuperGLUE.csv", None, True)
    chosen = {"BoolQ | acc": 0.5, "MultiRC | EM": 0.5}
    bounds = {v: (chosen.get(v, 0.0),) * 2 for v in table.get_column("voter").unique()}
    weak = condorcet_weights(table, "T5", bounds=bounds)
    strict = condorcet_weights(table, "T5", bounds=bounds, margin="strict")
    tied = ", ".join(weak.tied) if weak is not None else "-"
    return (f"T5 with BoolQ = MultiRC-EM = 0.5: weak Condorcet winner {'yes' if weak else 'no'} (ties {tied}); "
            f"strict winner {'yes' if strict else 'no'}. The paper calls T5 the winner under these weights: "
            f"it is so in the weak sense of its Eq. 2.")


def value_condorcet_with_missing() -> str:
    """VALUE with the Human row (five missing cells): the Condorcet winner of the majority relation."""
    result = run("condorcet", bundled_leaderboard("leaderboards - VALUE.csv", None, False))
    winners = result.ranking.filter(pl.col("rank") == 1).get_column("system").to_list()
    return f"VALUE with Human: Condorcet winner(s) {winners} (published: [Human])"


def pairformance_comparison() -> pl.DataFrame:
    """Bradley-Terry strengths (no prior, MM to 1e-9) and the M0-M1 sign test on the pairformance example."""
    table = pl.read_csv(PAIRFORMANCE).with_row_index("voter").with_columns(pl.col("voter").cast(pl.String))
    table = table.unpivot(index="voter", variable_name="system", value_name="score")
    fit = aggregate("bradley_terry", table, prior=0.0, tol=1e-9).sort("system")
    strengths = fit.get_column("score").exp()
    strengths = (strengths / strengths.sum()).to_list()
    sign_p = paired_tests(table).row(0, named=True)["sign_pvalue"]
    rows = [{"quantity": f"BT strength {s}", "published": p, "ours": round(o, 4)}
            for s, p, o in zip(fit.get_column("system"), PUBLISHED_BT, strengths)]
    rows.append({"quantity": "sign test p, M0 vs M1", "published": PUBLISHED_SIGN_P, "ours": round(sign_p, 4)})
    return pl.DataFrame(rows).with_columns(
        verdict=pl.when((pl.col("published") - pl.col("ours")).abs() <= 1e-4).then(pl.lit("match")).otherwise(pl.lit("differs"))
    )


# The toy examples the authors' code defines (epfl-dlab/BT-eval ``Intuition.ipynb``: Figure 1, letters as in the
# figure's legend, and the cell "the procedure described in Appendix"; epfl-dlab/pairformance ``tests/test_bt.py``).
FIGURE_1 = {"A": [1, 5, 11, 12, 17], "B": [2, 6, 7, 13, 18], "C": [5, 11, 12, 17, 1]}
APPENDIX_BEST, APPENDIX_WORST = [23, 50, 40], [28, 45, 30]
CYCLE = {"A": [1, 0, 1], "B": [0, 1, 0.5], "C": [2, 0.5, 0]}


def bt_strengths(scores: dict[str, list[float]]) -> dict[str, float]:
    """Bradley-Terry strengths (no prior, summing to 1) of systems scored on the same instances."""
    table = pl.DataFrame([{"voter": str(i), "system": system, "score": float(value)}
                          for system, values in scores.items() for i, value in enumerate(values)])
    fit = aggregate("bradley_terry", table, prior=0.0, tol=1e-12).sort("system")
    strengths = fit.get_column("score").exp()
    return dict(zip(fit.get_column("system").to_list(), (strengths / strengths.sum()).to_list()))


def bt_toy_examples() -> pl.DataFrame:
    """The paper's toy examples: means, medians and BT strengths, and whether each "all equal" holds for BT.

    Figure 1: every mean is 9.2, A's median exceeds B's, and BT puts C and B
    above A (the caption's claims).  The appendix procedure: the six orderings
    of X_worst's scores leave both means and both medians unchanged (all
    orderings equal for mean and median), but not the BT fit, which follows
    the pairing: X_best is stronger in four orderings, weaker in two.  The cycle of pairformance's
    tests: BT's "all equal" (1/3 each) does follow from the fit, since each
    system beats the next on two of three instances, though the means differ.
    """
    def row(example: str, scores: dict[str, list[float]], strengths: dict[str, float], statement: str,
            verdict: str) -> dict[str, str]:
        return {
            "example": example,
            "means": "; ".join(f"{s} {np.mean(v):.2f}" for s, v in scores.items()),
            "medians": "; ".join(f"{s} {np.median(v):g}" for s, v in scores.items()),
            "BT strengths (ours)": "; ".join(f"{s} {strengths[s]:.4f}" for s in scores),
            "statement": statement,
            "verdict": verdict,
        }

    def holds(flag: bool) -> str:
        return "holds" if flag else "does not hold"

    figure = bt_strengths(FIGURE_1)
    rows = [row("Figure 1", FIGURE_1, figure, "same mean for all; median A > median B; BT: C > A and B > A",
                holds(len({float(np.mean(v)) for v in FIGURE_1.values()}) == 1
                      and np.median(FIGURE_1["A"]) > np.median(FIGURE_1["B"])
                      and figure["C"] > figure["A"] and figure["B"] > figure["A"]))]
    orderings = [{"X_best": APPENDIX_BEST, "X_worst": list(o)} for o in itertools.permutations(APPENDIX_WORST)]
    fits = [bt_strengths(scores) for scores in orderings]
    same = {label: len({(float(f(s["X_best"])), float(f(s["X_worst"]))) for s in orderings}) == 1
            for label, f in (("mean", np.mean), ("median", np.median))}
    best = [fit["X_best"] for fit in fits]
    verdict = f"mean: {holds(same['mean'])}; median: {holds(same['median'])}; BT: {holds(max(best) - min(best) < 1e-9)}"
    rows += [row(f"appendix, X_worst ordered {scores['X_worst']}", scores, fit, "all orderings equal", verdict)
             for scores, fit in zip(orderings, fits)]
    cycle = bt_strengths(CYCLE)
    rows.append(row("cycle (pairformance tests)", CYCLE, cycle, "BT: all equal (1/3 each)",
                    holds(max(cycle.values()) - min(cycle.values()) < 1e-9)))
    return pl.DataFrame(rows)


def markdown(frame: pl.DataFrame) -> list[str]:
    """A frame as a Markdown table."""
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * frame.width]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.iter_rows()]
    return lines


def report() -> list[str]:
    """The Markdown of every comparison made from the bundled files."""
    return [
        "### Vote'n'Rank: every rule's top three (Tables 3, 4, 9, 10, 11; notebook CS1)\n",
        *markdown(vote_n_rank_comparison()),
        "",
        value_condorcet_with_missing(),
        "\n### Vote'n'Rank: prospective systems (notebook CS2) and the T5 example\n",
        *markdown(prospective_comparison()),
        "",
        t5_example(),
        "\n### How not to lie with a benchmark: means of SuperGLUE (the geometric beside Vote'n'Rank CS1's printed column)\n",
        *markdown(superglue_means()),
        "\n### Better than average: the pairformance example\n",
        *markdown(pairformance_comparison()),
        "\n### Better than average: the toy examples of the authors' code (Figure 1, the appendix procedure, the cycle)\n",
        *markdown(bt_toy_examples()),
    ]
