"""Two-step aggregation (rank inside each group, then across the groups) against direct loops.

The reference follows the definition in ``aggregators.two_step``: each group's
ballots are scored on their own (systems without a score in the group left
out), each group becomes one second-step voter weighing the mean weight of its
voters, and a system the group did not score is missing from that ballot (a
group that scores nothing casts an all-missing ballot).
"""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from aggregators import aggregate
from tests.aggregators import references
from tests.aggregators.conftest import ballots

# Copeland reads missing scores (pairs a voter did not score are not compared); Borda needs complete ballots.
REFERENCES = {
    "copeland": (references.copeland, True),
    "borda": (lambda table: references.borda(table, "average"), False),
}


def two_step_reference(table: pl.DataFrame, score) -> dict[str, float]:  # noqa: ANN001 - a reference from REFERENCES
    rows = []
    for group in sorted(set(table["group"])):
        part = table.filter(pl.col("group") == group)
        scored = part.filter(pl.col("score").is_not_null())
        points = score(scored) if scored.height else {}
        weight = part.unique("voter")["weight"].mean()
        for system in sorted(set(table["system"])):
            rows.append({"voter": group, "system": system, "score": points.get(system), "weight": weight})
    return score(pl.DataFrame(rows, schema_overrides={"score": pl.Float64}))


@pytest.mark.parametrize("name", sorted(REFERENCES))
@given(data=st.data())
def test_two_step_matches_the_definition(name, data):
    score, missing = REFERENCES[name]
    table = data.draw(ballots(groups=True, missing=missing, min_voters=2))
    got = dict(aggregate(name, table, two_step=True).select("system", "score").iter_rows())
    expected = two_step_reference(table, score)
    assert got == pytest.approx(expected, abs=1e-9)
