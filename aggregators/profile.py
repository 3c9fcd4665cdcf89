"""Ballots in, a dense profile out: the one validation boundary of the aggregators.

The public contract takes a long ``polars.DataFrame`` of ballots
(``voter, system, score[, weight][, group][, group_weight]``, score oriented higher-is-better,
null = missing).  Methods work on the dense :class:`Profile` built here: a
voters x systems float matrix with NaN for missing cells, systems sorted by
name and voters sorted by name, so the result never depends on row order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from scorehouse.aggregators.errors import InvalidBallotsError, MissingScoresError
from scorehouse.aggregators.schemas import (
    BALLOT_NAME_COLUMNS,
    BALLOT_NUMERIC_COLUMNS,
    GROUP,
    GROUP_WEIGHT,
    SCORE,
    SYSTEM,
    VOTER,
    WEIGHT,
)


@dataclass(frozen=True)
class Profile:
    """A validated, dense view of a ballots table.

    ``scores[v, s]`` is voter ``v``'s score of system ``s`` (higher is better),
    NaN where the voter did not score the system.  ``weights[v]`` is the
    voter's weight and ``groups[v]`` the group it belongs to ("" when the
    ballots had no group column).  ``group_weights[v]`` is the weight of
    voter ``v``'s group in a two-step run (None: every group weighs the same).
    """

    systems: tuple[str, ...]
    voters: tuple[str, ...]
    scores: np.ndarray
    weights: np.ndarray
    groups: tuple[str, ...]
    group_weights: np.ndarray | None = None

    @property
    def observed(self) -> np.ndarray:
        """Boolean mask of the scored cells."""
        return ~np.isnan(self.scores)

    def require_complete(self, method: str) -> None:
        """Raise :class:`MissingScoresError` naming the first missing cell."""
        missing = np.argwhere(np.isnan(self.scores))
        if len(missing):
            v, s = missing[0]
            raise MissingScoresError(
                f"method {method!r} needs a score for every (voter, system) but "
                f"{len(missing)} are missing, the first being voter {self.voters[v]!r}, "
                f"system {self.systems[s]!r}; use 'borda_partial', a majority-relation "
                f"rule ('copeland', 'minimax', 'condorcet') or drop incomplete systems first"
            )

    def require_equal_weights(self, method: str) -> None:
        """Raise :class:`InvalidBallotsError` unless every voter has the same weight."""
        if len(self.weights) and np.ptp(self.weights) > 0:
            heavy = int(np.argmax(self.weights))
            raise InvalidBallotsError(
                f"method {method!r} cannot weight voters, but voter {self.voters[heavy]!r} has weight "
                f"{self.weights[heavy]} while others weigh {self.weights.min()}; drop the weight "
                f"column or use a method that takes weights (e.g. 'elo', 'bradley_terry', 'borda')"
            )


def _check_columns(ballots: pl.DataFrame) -> pl.DataFrame:
    if not isinstance(ballots, pl.DataFrame):
        raise InvalidBallotsError(
            f"ballots must be a polars.DataFrame, got {type(ballots).__name__}"
        )
    absent = [c for c in (VOTER, SYSTEM, SCORE) if c not in ballots.columns]
    if absent:
        raise InvalidBallotsError(
            f"ballots lack the column(s) {absent}; expected voter, system, score[, weight][, group]"
        )
    for name in BALLOT_NAME_COLUMNS:
        if ballots.schema[name] != pl.String:
            raise InvalidBallotsError(
                f"ballots column {name!r} must be String, got {ballots.schema[name]}"
            )
    for name in BALLOT_NUMERIC_COLUMNS:
        if name in ballots.columns and not ballots.schema[name].is_numeric():
            raise InvalidBallotsError(
                f"ballots column {name!r} must be numeric, got {ballots.schema[name]}"
            )
    if GROUP in ballots.columns and ballots.schema[GROUP] != pl.String:
        raise InvalidBallotsError(f"ballots column 'group' must be String, got {ballots.schema[GROUP]}")
    if ballots.height == 0:
        raise InvalidBallotsError("ballots are empty: there is nothing to rank")
    nulls = ballots.select(pl.col(VOTER).null_count(), pl.col(SYSTEM).null_count()).row(0)
    if any(nulls):
        raise InvalidBallotsError("ballots have null voter or system names; every row needs both")
    return ballots.with_columns(
        pl.col(SCORE).cast(pl.Float64),
        (pl.col(WEIGHT).cast(pl.Float64) if WEIGHT in ballots.columns else pl.lit(1.0).alias(WEIGHT)),
        (pl.col(GROUP) if GROUP in ballots.columns else pl.lit("").alias(GROUP)),
    )


def name_codes(column: pl.Series) -> tuple[pl.Series, np.ndarray]:
    """The sorted distinct values of ``column`` and each row's index among them.

    A hash join rather than a sort of the rows: ballots arrive in any order and
    sorting millions of strings costs many times more than hashing them.
    """
    names = column.unique().sort()
    codes = (
        column.to_frame()
        .join(names.to_frame().with_row_index("code"), on=column.name, how="left", maintain_order="left")
        .get_column("code")
        .to_numpy()
        .astype(np.int64)
    )
    return names, codes


def _per_voter(values: np.ndarray, v: np.ndarray, n_voters: int) -> tuple[np.ndarray, np.ndarray]:
    """One value per voter (from any of its rows) and the mask of rows that disagree with it."""
    first = np.empty(n_voters, dtype=values.dtype)
    first[v] = values
    return first, values != first[v]


def _check_values(
    ballots: pl.DataFrame, voters: pl.Series, systems: pl.Series, v: np.ndarray, s: np.ndarray
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Raise :class:`InvalidBallotsError` for bad values; return each voter's weight and group.

    Works on the integer codes of voters and systems: counting (voter, system)
    pairs with ``bincount`` is linear, where a group-by on two string columns
    dominated the whole build at ten million rows.
    """
    counts = np.bincount(v * systems.len() + s, minlength=voters.len() * systems.len())
    dup = np.flatnonzero(counts > 1)
    if dup.size:
        first = int(dup[0])  # the smallest (voter, system) pair in name order
        voter, system = voters[first // systems.len()], systems[first % systems.len()]
        raise InvalidBallotsError(
            f"voter {voter!r} scores system {system!r} {counts[first]} times; a voter casts one score "
            f"per system: deduplicate the ballots (or give the voters distinct names)"
        )
    bad = ballots.filter(pl.col(SCORE).is_not_null() & ~pl.col(SCORE).is_finite()).head(1)
    if bad.height:
        raise InvalidBallotsError(
            f"voter {bad[VOTER][0]!r} gives system {bad[SYSTEM][0]!r} the non-finite score "
            f"{bad[SCORE][0]}; use null for a missing score"
        )
    bad_w = ballots.filter(
        pl.col(WEIGHT).is_null() | ~pl.col(WEIGHT).is_finite() | (pl.col(WEIGHT) < 0)
    ).head(1)
    if bad_w.height:
        raise InvalidBallotsError(
            f"voter {bad_w[VOTER][0]!r} has weight {bad_w[WEIGHT][0]}; weights must be finite and >= 0"
        )
    if not (ballots.get_column(WEIGHT) > 0).any():
        raise InvalidBallotsError(
            "every voter has weight 0, so no voter counts; give at least one voter a positive weight"
        )
    group_names, g = name_codes(ballots.get_column(GROUP))
    weights, weight_differs = _per_voter(ballots.get_column(WEIGHT).to_numpy(), v, voters.len())
    groups, group_differs = _per_voter(g, v, voters.len())
    inconsistent = v[weight_differs | group_differs]
    if inconsistent.size:
        raise InvalidBallotsError(
            f"voter {voters[int(inconsistent.min())]!r} has more than one weight or group; "
            f"weight and group are properties of the voter and must be constant across its rows"
        )
    return weights.astype(float), tuple(group_names.gather(groups).to_list())


def _group_weights(ballots: pl.DataFrame, v: np.ndarray, n_voters: int) -> np.ndarray | None:
    """Each voter's group weight (the optional ``group_weight`` column), constant within a group."""
    if GROUP_WEIGHT not in ballots.columns:
        return None
    bad = ballots.filter(
        pl.col(GROUP_WEIGHT).is_null() | ~pl.col(GROUP_WEIGHT).cast(pl.Float64).is_finite() | (pl.col(GROUP_WEIGHT) < 0)
    ).head(1)
    if bad.height:
        raise InvalidBallotsError(
            f"group {bad[GROUP][0]!r} has group_weight {bad[GROUP_WEIGHT][0]}; group weights must be finite and >= 0"
        )
    varying = ballots.group_by(GROUP).agg(pl.col(GROUP_WEIGHT).n_unique().alias("n")).filter(pl.col("n") > 1)
    if varying.height:
        raise InvalidBallotsError(
            f"group {varying.sort(GROUP)[GROUP][0]!r} has more than one group_weight; a group's weight is a "
            f"property of the group and must be the same on all its rows"
        )
    weights = np.empty(n_voters)
    weights[v] = ballots.get_column(GROUP_WEIGHT).cast(pl.Float64).to_numpy()
    return weights


def build_profile(ballots: pl.DataFrame) -> Profile:
    """Validate ``ballots`` and return their dense :class:`Profile`.

    Raises :class:`InvalidBallotsError` for missing columns, wrong dtypes,
    null names, duplicated (voter, system) pairs, non-finite scores and
    negative, null or non-finite weights, or weights that are all 0, and
    group weights that are negative, non-finite or differ within a group.
    """
    ballots = _check_columns(ballots)
    voters, v = name_codes(ballots.get_column(VOTER))
    systems, s = name_codes(ballots.get_column(SYSTEM))
    weights, groups = _check_values(ballots, voters, systems, v, s)
    matrix = np.full((voters.len(), systems.len()), np.nan)
    matrix[v, s] = ballots.get_column(SCORE).fill_null(np.nan).to_numpy()
    return Profile(
        systems=tuple(systems.to_list()),
        voters=tuple(voters.to_list()),
        scores=matrix,
        weights=weights,
        groups=groups,
        group_weights=_group_weights(ballots, v, voters.len()),
    )
