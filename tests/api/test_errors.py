"""Every refusal of the Python API is a ScorehouseError whose message names the argument and the value received."""

import pandas as pd
import polars as pl
import pytest

import scorehouse
from scorehouse import ScorehouseError

WIDE = pd.DataFrame({"system": ["a", "b"], "t1": [1.0, 2.0], "t2": [2.0, 1.0]})
LONG = pd.DataFrame({"model": ["a", "b"], "dataset": ["x", "x"], "value": [1.0, 2.0]})
BATTLES = pd.DataFrame({"model_a": ["a"], "model_b": ["b"], "winner": ["model_a"]})


@pytest.mark.parametrize(("call", "fragments"), [
    (lambda: scorehouse.rank([[1, 2]]), ["data", "list"]),
    (lambda: scorehouse.rank(WIDE, "bordo"), ["method='bordo'", "borda"]),
    (lambda: scorehouse.rank(WIDE, params=["ties", "min"]), ["params", "['ties', 'min']"]),
    (lambda: scorehouse.rank(WIDE, params={"tie": "min"}), ["tie", "ties"]),
    (lambda: scorehouse.rank(WIDE, params={"ties": "best"}), ["ties", "'best'"]),
    (lambda: scorehouse.rank(WIDE, higher_is_better="no"), ["higher_is_better", "'no'"]),
    (lambda: scorehouse.rank(WIDE, two_step=1), ["two_step", "1"]),
    (lambda: scorehouse.rank(WIDE, system="model"), ["system='model'", "['system', 't1', 't2']"]),
    (lambda: scorehouse.rank(WIDE.assign(note="x")), ["['note']", "score='score'"]),
    (lambda: scorehouse.rank(WIDE, metric="m"), ["metric='m'", "score='score'"]),
    (lambda: scorehouse.rank(LONG, system="model", task="task", score="value"), ["task='task'", "'dataset'"]),
    (lambda: scorehouse.rank(LONG.assign(value=["1", "2"]), system="model", task="dataset", score="value"),
     ["score='value'", "String"]),
    (lambda: scorehouse.rank(LONG, system="model", task="dataset", score="value", instance="item"), ["instance='item'"]),
    (lambda: scorehouse.rank(LONG.assign(model=["a", None]), system="model", task="dataset", score="value"),
     ["system='model'", "null"]),
    (lambda: scorehouse.rank(pd.concat([LONG, LONG.assign(dataset="y", w=[1.0, 2.0])]).fillna({"w": 1.0}),
                             system="model", task="dataset", score="value", weight="w"), ["weight='w'", "'y'", "[1.0, 2.0]"]),
    (lambda: scorehouse.rank(WIDE, system=3), ["system", "3"]),
    (lambda: scorehouse.rank_battles(BATTLES, "borda"), ["method='borda'", "bradley_terry"]),
    (lambda: scorehouse.rank_battles(BATTLES, winner="won"), ["winner='won'", "['model_a', 'model_b', 'winner']"]),
    (lambda: scorehouse.rank_battles(BATTLES.assign(winner="left"), "elo"), ["winner", "'left'"]),
    (lambda: scorehouse.rank_battles(BATTLES, bothbad="keep"), ["bothbad", "'keep'"]),
    (lambda: scorehouse.rank_battles({"model_a": ["a"]}), ["battles", "dict"]),
    (lambda: scorehouse.Warehouse(3), ["home", "3"]),
    (lambda: scorehouse.Warehouse("/tmp/x", frames="arrow"), ["frames", "'arrow'"]),
], ids=lambda v: v if isinstance(v, str) else None)
def test_errors_name_the_argument_and_the_value(call, fragments):
    with pytest.raises(ScorehouseError) as raised:
        call()
    for fragment in fragments:
        assert fragment in str(raised.value), str(raised.value)


def test_argument_errors_are_value_errors_and_usage_errors():
    with pytest.raises(ValueError) as raised:
        scorehouse.rank(pl.DataFrame({"system": ["a"]}), "nope")
    assert raised.value.exit_code == 2
