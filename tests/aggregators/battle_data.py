"""Random battles tables and their one-voter-per-battle ballots, shared by the battle tests."""

from __future__ import annotations

import numpy as np
import polars as pl

from scorehouse.aggregators.schemas import WINNER_VALUES

NAMES = ("zeta", "alpha", "Mu", "beta-2", "beta-10", "omega")


def random_battles(
    seed: int, n_battles: int = 60, n_systems: int = 5, *, tstamp: bool = False, weights: bool = False
) -> pl.DataFrame:
    """Battles among the first ``n_systems`` of :data:`NAMES`, every winner value drawn."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_systems, n_battles)
    b = (a + rng.integers(1, n_systems, n_battles)) % n_systems  # never a itself
    columns = {
        "model_a": [NAMES[i] for i in a],
        "model_b": [NAMES[i] for i in b],
        "winner": [WINNER_VALUES[i] for i in rng.choice(4, n_battles, p=[0.4, 0.35, 0.15, 0.1])],
    }
    if tstamp:  # few distinct stamps (stable order among equal ones) and some nulls
        stamps = rng.integers(0, 8, n_battles).astype(float)
        columns["tstamp"] = [None if rng.random() < 0.1 else s for s in stamps]
    if weights:
        columns["weight"] = rng.choice([0.5, 1.0, 2.0], n_battles)
    return pl.DataFrame(columns)


def play_order(frame: pl.DataFrame) -> list[int]:
    """Row positions in play order: by time stamp, stable, nulls last (a plain Python sort)."""
    if "tstamp" not in frame.columns:
        return list(range(frame.height))
    stamps = frame["tstamp"].to_list()
    return sorted(range(frame.height), key=lambda i: (stamps[i] is None, stamps[i] or 0.0, i))


def ballots_of(frame: pl.DataFrame, *, drop_bothbad: bool = False) -> pl.DataFrame:
    """One voter per battle, named by its place in play order: winner 1, loser 0, a tie 0.5 each."""
    rows = []
    for place, i in enumerate(play_order(frame)):
        battle = frame.row(i, named=True)
        if drop_bothbad and battle["winner"] == "tie (bothbad)":
            continue
        score_a = {"model_a": 1.0, "model_b": 0.0}.get(battle["winner"], 0.5)
        weight = battle.get("weight", 1.0)
        voter = f"v{place:06d}"
        rows.append((voter, battle["model_a"], score_a, weight))
        rows.append((voter, battle["model_b"], 1.0 - score_a, weight))
    return pl.DataFrame(rows, schema=["voter", "system", "score", "weight"], orient="row")


def hand_elo(frame: pl.DataFrame, rows: list[int], *, k: float = 20.0, initial: float = 1500.0) -> dict[str, float]:
    """Elo by hand over the battles at ``rows``, in that order (scale 400)."""
    rating = dict.fromkeys(sorted(set(frame["model_a"]) | set(frame["model_b"])), initial)
    for i in rows:
        row = frame.row(i, named=True)
        a, b = row["model_a"], row["model_b"]
        score = {"model_a": 1.0, "model_b": 0.0}.get(row["winner"], 0.5)
        delta = k * (score - 1.0 / (1.0 + 10.0 ** ((rating[b] - rating[a]) / 400.0)))
        rating[a] += delta
        rating[b] -= delta
    return rating
