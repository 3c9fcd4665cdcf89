"""Hypothesis strategies for ballots, shared by every aggregator test.

``ballots()`` draws a long ``voter, system, score, weight[, group]`` table:
few distinct score values (so voters tie often), optional voter weights
(including 0), optional missing scores (null cells and absent rows) and
optional groups.  Its keyword arguments narrow it for a given test.
"""

from __future__ import annotations

import polars as pl
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

settings.register_profile(
    "aggregators",
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.load_profile("aggregators")

# Positive values, so the geometric and harmonic means accept them; few of them, so voters tie.
SCORE_VALUES = (0.5, 1.0, 2.0, 3.5, 7.0)
WEIGHT_VALUES = (0.0, 0.5, 1.0, 2.0, 3.0)
# Names whose alphabetical order differs from their drawing order.
SYSTEM_NAMES = ("zeta", "alpha", "Mu", "beta-2", "beta-10", "omega", "eta", "kappa", "nu", "xi", "pi", "rho")
VOTER_NAMES = ("task:z", "task:a", "CoLA", "SST-2", "t10", "t2", "mnli/m", "qqp", "rte", "wnli")


@st.composite
def ballots(
    draw: st.DrawFn,
    *,
    min_systems: int = 1,
    max_systems: int = 6,
    min_voters: int = 1,
    max_voters: int = 6,
    missing: bool = False,
    weighted: bool = True,
    groups: bool = False,
    values: tuple[float, ...] = SCORE_VALUES,
) -> pl.DataFrame:
    """A ballots table; with ``missing`` some scores are null and some rows absent."""
    systems = draw(st.lists(st.sampled_from(SYSTEM_NAMES), min_size=min_systems, max_size=max_systems, unique=True))
    voters = draw(st.lists(st.sampled_from(VOTER_NAMES), min_size=min_voters, max_size=max_voters, unique=True))
    weights = [draw(st.sampled_from(WEIGHT_VALUES)) if weighted else 1.0 for _ in voters]
    if not any(weights):
        weights[0] = 1.0
    group_of = [draw(st.sampled_from(("g1", "g2"))) for _ in voters]
    rows = []
    for v, voter in enumerate(voters):
        for system in systems:
            cell = draw(st.sampled_from(("score", "score", "score", "null", "absent")) if missing else st.just("score"))
            if cell == "absent":
                continue
            score = draw(st.sampled_from(values)) if cell == "score" else None
            rows.append({"voter": voter, "system": system, "score": score, "weight": weights[v], "group": group_of[v]})
    # Every system keeps a row (so it is part of the profile), and so does a
    # voter of positive weight (so that some voter counts).
    anchor = next(v for v, w in enumerate(weights) if w > 0)
    present = {row["system"] for row in rows}
    if not any(row["voter"] == voters[anchor] for row in rows):
        present.discard(systems[0])
    rows.extend(
        {"voter": voters[anchor], "system": s, "score": values[0], "weight": weights[anchor], "group": group_of[anchor]}
        for s in systems
        if s not in present
    )
    frame = pl.DataFrame(
        rows, schema={"voter": pl.String, "system": pl.String, "score": pl.Float64, "weight": pl.Float64, "group": pl.String}
    )
    return frame if groups else frame.drop("group")

