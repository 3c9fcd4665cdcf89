"""A synthetic arena: pairwise battles among systems of known strength (pure; no disk).

No public arena dump ships with scorehouse, so this draws one with the shape of
the public ones (Chiang et al. (2024), "Chatbot Arena", ICML): the columns
``model_a, model_b, winner, judge, category, language, question_id, turn,
tstamp``, popular systems battling far more often than the rest, ties and
both-bad ties, and several judges of different reliability.

The model, with ``t_s`` the log-strength of system ``s`` and ``d = t_a - t_b``:

- Pairing.  Systems are ordered by a random popularity rank ``r`` (independent
  of strength) and drawn with probability proportional to ``r^-popularity``
  (Zipf, 1949); ``b`` is redrawn until it differs from ``a``.
- Judges.  Judge ``j`` sees ``d + N(0, noise_j^2)``: a noisy judge blurs the
  strengths (its outcomes fit smaller strengths), a noiseless one does not.
- Outcome.  With ``p`` the logistic of what the judge sees, the battle is a tie
  with probability ``4 · tie_probability · p (1 - p)`` (ties are likeliest
  between equals), a both-bad tie for a ``bothbad_share`` of the ties, a win of
  ``a`` with probability ``p`` minus half the tie probability, else a win of
  ``b``.  A win is then worth 1 and a tie 1/2 with expectation ``p``: the
  Bradley–Terry model (Bradley and Terry, 1952) with ties counted half, which
  :mod:`aggregators.bradley_terry` fits, so the fit recovers ``t`` on a
  noiseless judge's battles.
- Time stamps are uniform over ``days`` days from ``start``, in time order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
import polars as pl

from scorehouse.aggregators.schemas import MODEL_A, MODEL_B, TSTAMP, WINNER, WINNER_A, WINNER_B, WINNER_BOTHBAD, WINNER_TIE

JUDGES = (("human", 0.0), ("judge-large", 0.5), ("judge-small", 1.5))  # (name, noise sd on the strength gap)
CATEGORIES = ("coding", "math", "writing", "reasoning", "chat")
LANGUAGES = ("English", "Chinese", "German", "French", "Spanish")
SKEW = 1.3  # category and language frequencies fall as rank^-SKEW


@dataclass(frozen=True)
class SynthArena:
    """Generated battles and the truth behind them: ``strengths`` has ``system, strength, popularity``."""

    battles: pl.DataFrame
    strengths: pl.DataFrame


def _zipf(n: int, exponent: float) -> np.ndarray:
    weights = np.arange(1, n + 1, dtype=float) ** -exponent
    return weights / weights.sum()


def _check(
    n_battles: int, n_systems: int, tie_probability: float, bothbad_share: float, judges: Sequence[tuple[str, float]]
) -> None:
    if n_systems < 2 or n_battles < 1:
        raise ValueError(f"need at least 2 systems and 1 battle, got {n_systems} systems and {n_battles} battles")
    if not 0 <= tie_probability <= 0.5:
        raise ValueError(f"tie_probability must be in [0, 0.5] (a win keeps probability >= 0), got {tie_probability}")
    if not 0 <= bothbad_share <= 1:
        raise ValueError(f"bothbad_share must be in [0, 1], got {bothbad_share}")
    if not judges or any(noise < 0 for _, noise in judges):
        raise ValueError(f"judges must be (name, noise >= 0) pairs, got {judges!r}")


def synth_battles(
    n_battles: int,
    *,
    n_systems: int = 20,
    strengths: Sequence[float] | None = None,
    seed: int = 0,
    popularity: float = 1.0,
    tie_probability: float = 0.2,
    bothbad_share: float = 0.3,
    judges: Sequence[tuple[str, float]] = JUDGES,
    questions: int = 10_000,
    start: datetime = datetime(2025, 1, 1),
    days: int = 365,
) -> SynthArena:
    """``n_battles`` battles drawn from the model of the module docstring; deterministic for a ``seed``.

    ``strengths`` (log-strengths, one per system) default to standard normal
    draws; the systems are named ``model-000``, ``model-001``, ...
    """
    if strengths is not None:
        n_systems = len(strengths)
    _check(n_battles, n_systems, tie_probability, bothbad_share, judges)
    rng = np.random.default_rng(seed)
    truth = rng.standard_normal(n_systems) if strengths is None else np.asarray(strengths, dtype=float)
    rank = rng.permutation(n_systems)  # popularity rank 0 = most popular, independent of strength
    weight = _zipf(n_systems, popularity)[rank]
    a = rng.choice(n_systems, n_battles, p=weight)
    b = rng.choice(n_systems, n_battles, p=weight)
    while (same := np.flatnonzero(a == b)).size:  # redraw b where it met a: few rounds, each on fewer battles
        b[same] = rng.choice(n_systems, same.size, p=weight)
    judge = rng.integers(0, len(judges), n_battles)
    noise = np.array([sd for _, sd in judges])[judge]
    p = 1.0 / (1.0 + np.exp(-(truth[a] - truth[b] + noise * rng.standard_normal(n_battles))))
    tie = 4.0 * tie_probability * p * (1.0 - p)
    u = rng.random(n_battles)
    bothbad = rng.random(n_battles) < bothbad_share
    # 0 a won, 1 b won, 2 tie, 3 both-bad tie: the order of the winner values
    outcome = np.where(u < tie, np.where(bothbad, 3, 2), np.where(u < tie + p - tie / 2, 0, 1))
    names = pl.Series([f"model-{i:03d}" for i in range(n_systems)])
    seconds = np.sort(rng.uniform(0.0, days * 86_400.0, n_battles))
    epoch_us = (start - datetime(1970, 1, 1)) // timedelta(microseconds=1)

    def pick(values: Sequence[str], codes: np.ndarray) -> pl.Series:
        return pl.Series(list(values)).gather(codes)

    battles = pl.DataFrame(
        {
            MODEL_A: names.gather(a),
            MODEL_B: names.gather(b),
            WINNER: pick((WINNER_A, WINNER_B, WINNER_TIE, WINNER_BOTHBAD), outcome),
            "judge": pick([name for name, _ in judges], judge),
            "category": pick(CATEGORIES, rng.choice(len(CATEGORIES), n_battles, p=_zipf(len(CATEGORIES), SKEW))),
            "language": pick(LANGUAGES, rng.choice(len(LANGUAGES), n_battles, p=_zipf(len(LANGUAGES), SKEW))),
            "question_id": pl.Series(rng.integers(0, questions, n_battles)).cast(pl.String).str.zfill(6),
            "turn": rng.geometric(0.7, n_battles),  # 1, 2, 3, ... turns, most conversations short
            TSTAMP: pl.Series(epoch_us + np.rint(seconds * 1e6).astype(np.int64)).cast(pl.Datetime("us")),
        }
    )
    strengths_frame = pl.DataFrame({"system": names, "strength": truth, "popularity": weight})
    return SynthArena(battles=battles, strengths=strengths_frame)
