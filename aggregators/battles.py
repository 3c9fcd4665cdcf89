"""Pairwise battles: the validation boundary, the play order and the counts.

A battles table has one row per battle, with the column names of the public
arena dumps (Chiang et al. (2024), "Chatbot Arena: An Open Platform for
Evaluating LLMs by Human Preference", ICML): ``model_a``, ``model_b`` (the two
systems), ``winner`` (one of :data:`aggregators.schemas.WINNER_VALUES`), an
optional ``weight`` (default 1) and an optional ``tstamp`` (any orderable
type: a Datetime, or seconds as a number).  :func:`build_battles` validates it
once and gives :class:`Battles`, integer codes in play order, from which
:func:`battle_counts` (for the methods that depend on the counts alone) and
:func:`battle_games` (for the sequential ratings) are derived.

Results.  A win counts 1, a tie half to each side, as the pairwise view of the
ballots does (:mod:`aggregators.pairwise`).  A both-bad tie (``tie (bothbad)``)
counts as a tie (``bothbad="tie"``) or is dropped (``bothbad="drop"``); the
systems are those of the battles that are kept.

Numeric judgements.  An optional ``outcome`` column (Float64 in [0, 1], null where
the winner is given by name) is model_a's share of the win read from a number (a
preference, a probability).  :attr:`Battles.share` holds it (the result where it is
null); the counts with ``fractional=True`` split a battle of share ``s`` into a tie of
weight ``1 - |2s - 1|`` and a win of weight ``|2s - 1|`` for the side ``s`` favours, so
each side's credit is exactly its share (``s`` and ``1 - s``).  Bradley-Terry fits on
those counts; every other method reads the winner (the judgement's category).

Play order.  Battles are played in time-stamp order when there is a
``tstamp`` column (a stable sort: battles of the same time stamp keep their row
order, and battles without one come last), else in row order.

Everything is vectorised over battles; the counts cost O(battles + systems²)
(``bincount`` on a pair index), never battles x pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from scorehouse.aggregators.errors import InvalidBattlesError, InvalidParameterError
from scorehouse.aggregators.pairwise import Games, PairCounts
from scorehouse.aggregators.profile import name_codes
from scorehouse.aggregators.schemas import (
    BATTLE_NAME_COLUMNS,
    BOTHBAD_RULES,
    MODEL_A,
    MODEL_B,
    OUTCOME,
    TSTAMP,
    WEIGHT,
    WINNER,
    WINNER_A,
    WINNER_BOTHBAD,
    WINNER_TIE,
    WINNER_VALUES,
)

ROW = "__row"  # the position of a battle in the table given, for error messages and the stable sort


@dataclass(frozen=True)
class Battles:
    """Validated battles in play order.

    ``systems`` are the sorted names; battle ``g`` is between ``first[g]`` (the
    table's ``model_a``) and ``second[g]`` (``model_b``), indices into
    ``systems``; ``result[g]`` is 1 when ``first`` won, 0.5 for a tie, 0 when
    ``second`` won; ``weight[g]`` its weight.  ``dropped`` counts the both-bad
    ties left out by ``bothbad="drop"``.  ``share[g]`` is ``first``'s share of the
    win from a numeric judgement, ``result[g]`` where there is none (module docstring).
    """

    systems: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    result: np.ndarray
    weight: np.ndarray
    dropped: int = 0
    share: np.ndarray | None = None  # None: no numeric judgement, the results are the shares

    @property
    def size(self) -> int:
        return int(self.first.size)

    def subset(self, rows: np.ndarray) -> Battles:
        """The battles at ``rows`` (indices, in the order given) over the same systems."""
        share = None if self.share is None else self.share[rows]
        return Battles(self.systems, self.first[rows], self.second[rows], self.result[rows], self.weight[rows],
                       share=share)


def _first_bad_row(frame: pl.DataFrame, bad: pl.Expr) -> tuple[int, dict] | None:
    """The position and values of the first row where ``bad`` holds, or None."""
    hit = frame.filter(bad).head(1)
    return (int(hit[ROW][0]), hit.row(0, named=True)) if hit.height else None


def _check_columns(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with its name and winner columns as String (all-null columns have no type), or the named error."""
    missing = [c for c in (MODEL_A, MODEL_B, WINNER) if c not in frame.columns]
    if missing:
        raise InvalidBattlesError(
            f"battles table lacks column(s) {missing}; it needs {MODEL_A}, {MODEL_B}, {WINNER} "
            f"(optional: {WEIGHT}, {TSTAMP}); got columns {frame.columns}"
        )
    text = (*BATTLE_NAME_COLUMNS, WINNER)
    frame = frame.with_columns(pl.col(c).cast(pl.String) for c in text if frame.schema[c] == pl.Null)
    for column in text:
        if frame.schema[column] != pl.String:
            raise InvalidBattlesError(
                f"battles column {column!r} must be String, got {frame.schema[column]}; cast it to text"
            )
    for column in (WEIGHT, OUTCOME):
        if column in frame.columns and not (frame.schema[column].is_numeric() or frame.schema[column] == pl.Null):
            raise InvalidBattlesError(f"battles column {column!r} must be numeric, got {frame.schema[column]}")
    return frame


def _check_values(frame: pl.DataFrame) -> None:
    """Raise :class:`InvalidBattlesError` naming the first bad row (counted from 0) and its value."""
    for column in BATTLE_NAME_COLUMNS:
        found = _first_bad_row(frame, pl.col(column).is_null() | (pl.col(column).str.strip_chars() == ""))
        if found:
            row, values = found
            raise InvalidBattlesError(
                f"battle at row {row} (counting from 0) has the empty or null {column} {values[column]!r}; "
                f"every battle needs the names of both systems"
            )
    found = _first_bad_row(frame, pl.col(MODEL_A) == pl.col(MODEL_B))
    if found:
        row, values = found
        raise InvalidBattlesError(
            f"battle at row {row} (counting from 0) has system {values[MODEL_A]!r} battling itself; "
            f"a battle is between two different systems: drop or fix that row"
        )
    found = _first_bad_row(frame, pl.col(WINNER).is_null() | ~pl.col(WINNER).is_in(WINNER_VALUES))
    if found:
        row, values = found
        raise InvalidBattlesError(
            f"battle at row {row} (counting from 0) has the unknown winner {values[WINNER]!r}; "
            f"winner must be one of {WINNER_VALUES}"
        )
    if OUTCOME in frame.columns:
        share = pl.col(OUTCOME).cast(pl.Float64)
        found = _first_bad_row(frame, share.is_not_null() & (~share.is_finite() | (share < 0) | (share > 1)))
        if found:
            row, values = found
            raise InvalidBattlesError(
                f"battle at row {row} (counting from 0) has outcome {values[OUTCOME]!r}; an outcome is model_a's "
                f"share of the win, in [0, 1] (null when the winner says it)"
            )
    if WEIGHT in frame.columns:
        weight = pl.col(WEIGHT).cast(pl.Float64)
        found = _first_bad_row(frame, weight.is_null() | ~weight.is_finite() | (weight < 0))
        if found:
            row, values = found
            raise InvalidBattlesError(
                f"battle at row {row} (counting from 0) has weight {values[WEIGHT]!r}; "
                f"weights must be finite and >= 0"
            )


def check_bothbad(bothbad: str) -> None:
    """Raise :class:`InvalidParameterError` unless ``bothbad`` is a known rule."""
    if bothbad not in BOTHBAD_RULES:
        raise InvalidParameterError(
            f"parameter 'bothbad' must be one of {BOTHBAD_RULES} (count a '{WINNER_BOTHBAD}' battle as a tie, "
            f"or drop it), got {bothbad!r}"
        )


def build_battles(frame: pl.DataFrame, *, bothbad: str = "tie") -> Battles:
    """Validate a battles table and give its battles in play order (see the module docstring).

    Raises :class:`InvalidBattlesError` naming the row and value of the first
    bad battle, and :class:`InvalidParameterError` for an unknown ``bothbad``.
    """
    check_bothbad(bothbad)
    frame = _check_columns(frame).with_row_index(ROW)
    _check_values(frame)
    if TSTAMP in frame.columns:
        frame = frame.sort(TSTAMP, nulls_last=True, maintain_order=True)
    dropped = 0
    if bothbad == "drop":
        kept = frame.filter(pl.col(WINNER) != WINNER_BOTHBAD)
        dropped, frame = frame.height - kept.height, kept
    if frame.height == 0:
        raise InvalidBattlesError(
            f"no battles to rank (after dropping {dropped} both-bad tie(s))" if dropped else "no battles to rank"
        )
    systems, codes = name_codes(pl.concat([frame.get_column(MODEL_A), frame.get_column(MODEL_B)]))
    winner = frame.get_column(WINNER)
    result = (
        (winner == WINNER_A).cast(pl.Float64)
        + 0.5 * winner.is_in((WINNER_TIE, WINNER_BOTHBAD)).cast(pl.Float64)
    ).to_numpy()
    weight = (
        frame.get_column(WEIGHT).cast(pl.Float64).to_numpy() if WEIGHT in frame.columns else np.ones(frame.height)
    )
    if not (weight > 0).any():
        raise InvalidBattlesError("every battle has weight 0, so none counts; give at least one a positive weight")
    share = None
    if OUTCOME in frame.columns and frame.get_column(OUTCOME).null_count() < frame.height:
        share = frame.get_column(OUTCOME).cast(pl.Float64).fill_null(pl.Series(result)).to_numpy()
    return Battles(
        systems=tuple(systems.to_list()),
        first=codes[: frame.height],
        second=codes[frame.height :],
        result=result,
        weight=weight,
        dropped=dropped,
        share=share,
    )


def battle_counts(battles: Battles, fractional: bool = False) -> PairCounts:
    """Weighted wins and ties of every pair, and its number of battles (``voters``).

    ``wins[a, b]`` is the weight of the battles ``a`` won against ``b``,
    ``ties[a, b]`` (symmetric) that of their ties, ``voters[a, b]`` the number
    of battles between them: the counts :func:`aggregators.pairwise.pair_counts`
    gives for one voter per battle.  ``fractional`` counts the shares of numeric
    judgements (module docstring) instead of their winners.  O(battles + systems²).
    """
    n = len(battles.systems)
    first, second, weight = battles.first, battles.second, battles.weight
    result = battles.share if fractional and battles.share is not None else battles.result
    margin = np.abs(2.0 * result - 1.0)  # the part of a battle that is a win: 1 for a win, 0 for a tie
    decided = margin > 0
    winner = np.where(result > 0.5, first, second)[decided]
    loser = np.where(result > 0.5, second, first)[decided]
    wins = np.bincount(winner * n + loser, weights=(weight * margin)[decided], minlength=n * n).reshape(n, n)
    pair = first * n + second
    ties = np.bincount(pair, weights=weight * (1.0 - margin), minlength=n * n).reshape(n, n)
    played = np.bincount(pair, minlength=n * n).reshape(n, n)
    return PairCounts(battles.systems, wins, ties + ties.T, played + played.T)


def played_matrix(counts: PairCounts) -> np.ndarray:
    """The battles of every pair off the diagonal and each system's number of battles on it (its coverage)."""
    played = counts.voters.copy()
    np.fill_diagonal(played, counts.voters.sum(1))
    return played


def battle_games(battles: Battles) -> Games:
    """The battles as games in play order, oriented ``first < second`` as :class:`Games` are."""
    swap = battles.first > battles.second
    return Games(
        first=np.where(swap, battles.second, battles.first),
        second=np.where(swap, battles.first, battles.second),
        result=np.where(swap, 1.0 - battles.result, battles.result),
        weight=battles.weight,
    )
