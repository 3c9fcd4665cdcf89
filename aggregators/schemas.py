"""The schemas of the tables the aggregators take and produce, in one light module.

Polars only: the warehouse stores these tables under these schemas, and
importing this module must not load the methods (scipy and all).
"""

import polars as pl

# The ballots contract: one row per (voter, system); weight, group and group_weight are optional.
VOTER, SYSTEM, SCORE, WEIGHT, GROUP = "voter", "system", "score", "weight", "group"
GROUP_WEIGHT = "group_weight"  # a group's weight in a two-step run (default: every group the same)
BALLOT_NAME_COLUMNS = (VOTER, SYSTEM)  # String, never null
BALLOT_NUMERIC_COLUMNS = (SCORE, WEIGHT, GROUP_WEIGHT)

# The ranking contract: what every method returns.
RANKING_SCHEMA: dict[str, pl.DataType] = {
    SYSTEM: pl.String(),
    SCORE: pl.Float64(),
    "rank": pl.Int64(),
    "tied": pl.Boolean(),
}

# Robustness experiments: one row per method x setting x repetition, and its summary.
TABLE_SCHEMA: dict[str, pl.DataType] = {
    "experiment": pl.String(),
    "method": pl.String(),
    "condition": pl.String(),  # what is held fixed: the rescaled task, the dispersion phi, or ""
    "setting": pl.Float64(),  # what varies: number of tasks, missing rate, factor, corrupted tasks
    "repetition": pl.Int64(),
    "kendall_tau": pl.Float64(),
    "top1": pl.Float64(),
    "top3": pl.Float64(),
}

SUMMARY_SCHEMA: dict[str, pl.DataType] = {
    "experiment": pl.String(),
    "method": pl.String(),
    "condition": pl.String(),
    "setting": pl.Float64(),
    "repetitions": pl.Int64(),
    "tau_mean": pl.Float64(),
    "tau_std": pl.Float64(),
    "tau_low": pl.Float64(),  # 5 % quantile: the lower edge of the plotted band
    "tau_high": pl.Float64(),  # 95 % quantile
    "top1_mean": pl.Float64(),
    "top3_mean": pl.Float64(),
}

# The disagreement report: every pair of methods, and the systems that move most.
PAIRS_SCHEMA: dict[str, pl.DataType] = {
    "method_a": pl.String(),
    "method_b": pl.String(),
    "kendall_tau": pl.Float64(),
    "top1_differs": pl.Boolean(),
    "top3_differs": pl.Boolean(),
    "top1_a": pl.String(),
    "top1_b": pl.String(),
}

MOVES_SCHEMA: dict[str, pl.DataType] = {
    "method_a": pl.String(),
    "method_b": pl.String(),
    "system": pl.String(),
    "rank_a": pl.Int64(),
    "rank_b": pl.Int64(),
    "shift": pl.Int64(),  # rank_a - rank_b: positive when method_a ranks the system lower
    "explanation": pl.String(),
}

# Pairwise win probabilities with Hoeffding intervals (aggregators.pairwise_intervals).
CONFIDENCE_SCHEMA: dict[str, pl.DataType] = {
    "system_a": pl.String(),
    "system_b": pl.String(),
    "probability": pl.Float64(),
    "n": pl.Int64(),
    "half_width": pl.Float64(),
    "lower": pl.Float64(),
    "upper": pl.Float64(),
    "excludes_half": pl.Boolean(),
}

# The battles contract: one row per pairwise battle, as the public arena dumps name the columns.
MODEL_A, MODEL_B, WINNER, TSTAMP = "model_a", "model_b", "winner", "tstamp"  # weight: WEIGHT above
# Optional: model_a's share of the win in [0, 1] from a numeric judgement (null: the winner says it).
OUTCOME = "outcome"
BATTLE_NAME_COLUMNS = (MODEL_A, MODEL_B)  # String, never null nor empty
WINNER_A, WINNER_B, WINNER_TIE, WINNER_BOTHBAD = "model_a", "model_b", "tie", "tie (bothbad)"
WINNER_VALUES = (WINNER_A, WINNER_B, WINNER_TIE, WINNER_BOTHBAD)
BOTHBAD_RULES = ("tie", "drop")  # what a both-bad tie counts as: a tie, or no battle at all
