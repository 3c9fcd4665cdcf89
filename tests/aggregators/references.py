"""Reference implementations for the aggregator tests: direct loops, straight from the definitions.

They read the ballots table row by row (never the Profile or any module under
test) and favour plainness over speed, so that a disagreement points at the
vectorised code.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import polars as pl


def as_dicts(ballots: pl.DataFrame) -> tuple[list[str], dict[str, float], dict[str, dict[str, float]]]:
    """Sorted systems, voter weights, and each voter's observed scores."""
    systems = sorted(set(ballots["system"]))
    weight: dict[str, float] = {}
    scores: dict[str, dict[str, float]] = {}
    has_weight = "weight" in ballots.columns
    for row in ballots.iter_rows(named=True):
        weight[row["voter"]] = row["weight"] if has_weight else 1.0
        own = scores.setdefault(row["voter"], {})
        if row["score"] is not None:
            own[row["system"]] = row["score"]
    return systems, weight, scores


def pairwise_counts(ballots: pl.DataFrame) -> tuple[list[str], dict, dict]:
    """``wins[(x, y)]`` and ``ties[(x, y)]``: weight of the voters scoring both with x > y / x == y."""
    systems, weight, scores = as_dicts(ballots)
    wins: dict[tuple[str, str], float] = defaultdict(float)
    ties: dict[tuple[str, str], float] = defaultdict(float)
    for voter, own in scores.items():
        for x in own:
            for y in own:
                if x == y:
                    continue
                if own[x] > own[y]:
                    wins[(x, y)] += weight[voter]
                elif own[x] == own[y]:
                    ties[(x, y)] += weight[voter]
    return systems, wins, ties


def beats(wins: dict, x: str, y: str) -> bool:
    return wins[(x, y)] - wins[(y, x)] > 1e-9


def condorcet_winner(ballots: pl.DataFrame) -> str | None:
    systems, wins, _ = pairwise_counts(ballots)
    found = [x for x in systems if all(beats(wins, x, y) for y in systems if y != x)]
    return found[0] if found else None


def condorcet_loser(ballots: pl.DataFrame) -> str | None:
    systems, wins, _ = pairwise_counts(ballots)
    found = [x for x in systems if all(beats(wins, y, x) for y in systems if y != x)]
    return found[0] if found else None


def copeland(ballots: pl.DataFrame) -> dict[str, float]:
    systems, wins, _ = pairwise_counts(ballots)
    return {
        x: sum(beats(wins, x, y) for y in systems if y != x) - sum(beats(wins, y, x) for y in systems if y != x)
        for x in systems
    }


def minimax(ballots: pl.DataFrame) -> dict[str, float]:
    systems, wins, _ = pairwise_counts(ballots)
    return {x: -max([wins[(y, x)] for y in systems if y != x and beats(wins, y, x)], default=0.0) for x in systems}


def blocks(own: dict[str, float]) -> dict[str, tuple[int, int]]:
    """Best and worst position of each system's tie block in one voter's scores."""
    return {
        x: (1 + sum(s > v for s in own.values()), sum(s >= v for s in own.values()))
        for x, v in own.items()
    }


def positional(ballots: pl.DataFrame, vector, ties: str) -> dict[str, float]:
    """Weighted positional totals; ``vector(k)`` = points of position k (1 = best)."""
    systems, weight, scores = as_dicts(ballots)
    totals = dict.fromkeys(systems, 0.0)
    for voter, own in scores.items():
        for x, (a, b) in blocks(own).items():
            share = {"min": vector(a), "max": vector(b), "average": np.mean([vector(k) for k in range(a, b + 1)])}
            totals[x] += weight[voter] * share[ties]
    return totals


def borda(ballots: pl.DataFrame, ties: str) -> dict[str, float]:
    """Points per voter = systems strictly lower + (1/2, 1 or 0 per tied system for average, min, max)."""
    systems, weight, scores = as_dicts(ballots)
    per_tie = {"average": 0.5, "min": 1.0, "max": 0.0}[ties]
    totals = dict.fromkeys(systems, 0.0)
    for voter, own in scores.items():
        for x, v in own.items():
            lower = sum(s < v for s in own.values())
            tied = sum(s == v for s in own.values()) - 1
            totals[x] += weight[voter] * (lower + per_tie * tied)
    return totals


def threshold_winners(ballots: pl.DataFrame) -> set[str]:
    """Vote'n'Rank's iteration: for positions n, n-1, ..., 2 keep the systems placed there by the least weight."""
    systems, weight, scores = as_dicts(ballots)
    worst = {voter: {x: b for x, (_, b) in blocks(own).items()} for voter, own in scores.items()}
    candidates = list(systems)
    for step in range(len(systems), 1, -1):
        count = {x: sum(weight[v] for v in worst if worst[v][x] == step) for x in candidates}
        fewest = min(count.values())
        candidates = [x for x in candidates if count[x] == fewest]
    return set(candidates)


def baldwin_rounds(ballots: pl.DataFrame, ties: str) -> dict[str, int]:
    """Round in which each system is eliminated (the winners get the number of rounds)."""
    systems, _, _ = as_dicts(ballots)
    remaining = list(systems)
    survived: dict[str, int] = {}
    rounds = 0
    while len(remaining) > 1:
        sub = ballots.filter(pl.col("system").is_in(remaining))
        totals = borda(sub, ties)
        low = min(totals.values())
        lowest = [x for x in remaining if totals[x] <= low + 1e-9]
        if len(lowest) == len(remaining):
            break
        for x in lowest:
            survived[x] = rounds
        remaining = [x for x in remaining if x not in lowest]
        rounds += 1
    survived.update(dict.fromkeys(remaining, rounds))
    return survived


def kemeny_brute_force(ballots: pl.DataFrame) -> tuple[list[tuple[str, ...]], float]:
    """All optimal rankings (in lexicographic order of the sorted systems) and the optimal cost."""
    systems, wins, ties = pairwise_counts(ballots)
    costs = {}
    for ranking in itertools.permutations(systems):
        cost = 0.0
        for i, x in enumerate(ranking):
            for y in ranking[i + 1 :]:
                cost += wins[(y, x)] + ties[(x, y)] / 2
        costs[ranking] = cost
    best = min(costs.values())
    return [r for r, c in costs.items() if c <= best + 1e-9], best


def ranks_from_scores(scores: dict[str, float]) -> dict[str, int]:
    """Competition ranks under the documented tie rule of ``aggregators.ranking``, written plainly:
    sorted from the highest, a value within a relative 1e-9 (at least an absolute 1e-9) of the
    previous one joins its tie class; a class's rank is 1 + the number of values above it."""
    classes: list[list[float]] = []
    for value in sorted(scores.values(), reverse=True):
        last = classes[-1][-1] if classes else None
        if last is not None and last - value <= 1e-9 * max(1.0, abs(last), abs(value)):
            classes[-1].append(value)
        else:
            classes.append([value])
    rank_of, position = {}, 1
    for members in classes:
        for value in members:
            rank_of[value] = position
        position += len(members)
    return {system: rank_of[value] for system, value in scores.items()}
