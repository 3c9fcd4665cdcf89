"""Battles whose judgement is a number (``--winner-scale A,B [--tie-band W]``): read, quarantined with a reason when
unreadable, and fitted by Bradley-Terry as fractional outcomes (checked against a likelihood maximised by scipy)."""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy.optimize import minimize
from scipy.special import log_expit

from scorehouse.aggregators.battle_ranking import aggregate_battles
from scorehouse.transforms.parsers import ParseError
from scorehouse.transforms.parsers.battles import parse_mapped
from scorehouse.transforms.validate_battles import validate_battles


def judged(tmp_path: Path, values: list[str], scale: str, band: str | None = None):
    path = tmp_path / "prefs.csv"
    path.write_text("model_a,model_b,preference\n" + "".join(f"A,B,{v}\n" for v in values))
    options = {"winner": "preference", "winner_scale": scale, **({"tie_band": band} if band else {})}
    return validate_battles(parse_mapped(path, "judged", options).rows, file=str(path), load_id="l")


def test_a_preference_in_1_to_2_reads_as_winner_and_share_with_ties_exactly_at_the_midpoint(tmp_path):
    checked = judged(tmp_path, ["1", "1.0000001827", "1.25", "1.5", "1.75", "2"], "1,2")
    landed = checked.battles.select("winner", "outcome").rows()
    assert landed == [("model_a", 1.0), ("model_a", pytest.approx(0.9999998173)), ("model_a", 0.75),
                      ("tie", 0.5), ("model_b", 0.25), ("model_b", 0.0)]
    assert checked.quarantine.height == 0


def test_a_tie_band_counts_its_ends_as_ties_despite_float_rounding(tmp_path):
    checked = judged(tmp_path, ["1.39", "1.4", "1.6", "1.61"], "1,2", band="0.1")
    assert checked.battles.get_column("winner").to_list() == ["model_a", "tie", "tie", "model_b"]


def test_a_reversed_scale_reads_a_probability_that_model_a_is_better(tmp_path):
    checked = judged(tmp_path, ["0.9", "0.5", "0.2"], "1,0")
    assert checked.battles.select("winner", "outcome").rows() == [
        ("model_a", 0.9), ("tie", 0.5), ("model_b", pytest.approx(0.2))]


def test_unreadable_judgements_are_quarantined_with_the_reason_and_keep_the_value_as_given(tmp_path):
    checked = judged(tmp_path, ["1.2", "better", "", "2.5"], "1,2")
    assert checked.battles.height == 1
    assert checked.quarantine.select("winner", "reason").rows() == [
        ("better", "non-numeric judgement 'better' (--winner-scale 1,2)"),
        (None, "empty judgement (--winner-scale 1,2)"),
        ("2.5", "judgement '2.5' outside the scale 1 to 2 (--winner-scale 1,2)"),
    ]


@pytest.mark.parametrize(("scale", "band"), [("1,1", None), ("1,x", None), ("1,2", "0.5"), ("1,2", "-0.1")])
def test_a_scale_that_cannot_be_read_is_a_parse_error(tmp_path, scale, band):
    with pytest.raises(ParseError, match="--winner-scale"):
        judged(tmp_path, ["1"], scale, band)


def test_a_numeric_winner_without_a_scale_says_how_to_read_it(tmp_path):
    path = tmp_path / "prefs.csv"
    path.write_text("model_a,model_b,preference\nA,B,1.0000001827\n")
    checked = validate_battles(parse_mapped(path, "j", {"winner": "preference"}).rows, file="f", load_id="l")
    assert "or a number read with --winner-scale A,B" in checked.quarantine.get_column("reason").item()


def reference_strengths(first, second, share, n):
    """Bradley-Terry log-strengths maximising sum s log sigma(t_a - t_b) + (1 - s) log sigma(t_b - t_a), centred."""
    def negative(theta):
        d = theta[first] - theta[second]
        return -(share * log_expit(d) + (1 - share) * log_expit(-d)).sum()

    fitted = minimize(negative, np.zeros(n), method="BFGS", options={"gtol": 1e-10}).x
    return fitted - fitted.mean()


def test_bradley_terry_fits_the_shares_as_fractional_outcomes():
    rng = np.random.default_rng(7)
    systems = ["s0", "s1", "s2", "s3"]
    first = rng.integers(0, 4, 60)
    second = (first + rng.integers(1, 4, 60)) % 4
    share = np.round(rng.uniform(0, 1, 60), 3)
    winner = np.where(share > 0.5, "model_a", np.where(share < 0.5, "model_b", "tie"))
    battles = pl.DataFrame({"model_a": [systems[i] for i in first], "model_b": [systems[i] for i in second],
                            "winner": winner, "outcome": share})
    ranking = aggregate_battles("bradley_terry", battles, {"prior": 0.0, "tol": 1e-12}).ranking
    fitted = dict(zip(ranking.get_column("system"), ranking.get_column("score"), strict=True))
    expected = reference_strengths(first, second, share, 4)
    assert [fitted[s] for s in systems] == pytest.approx(list(expected), abs=1e-5)
    # the categorical reading of the same battles is another fit: the shares are what was used
    categorical = aggregate_battles("bradley_terry", battles.drop("outcome"), {"prior": 0.0}).ranking
    assert categorical.get_column("score").to_list() != pytest.approx(ranking.get_column("score").to_list(), abs=1e-3)
