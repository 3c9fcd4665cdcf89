"""Hypothesis strategies and ballot builders for the paired-evaluation tests."""

import numpy as np
import polars as pl
from hypothesis import strategies as st

PAIRFORMANCE = "data/bundled/pairformance/examples/dialogue_example_df.csv"


def ballots_from_matrix(scores: np.ndarray, weights: np.ndarray | None = None) -> pl.DataFrame:
    """Long ballots from a voters x systems matrix (NaN = missing); voters v000.., systems s0.."""
    n_voters, n_systems = scores.shape
    frame = pl.DataFrame(
        {
            "voter": np.repeat([f"v{v:03d}" for v in range(n_voters)], n_systems),
            "system": np.tile([f"s{s}" for s in range(n_systems)], n_voters),
            "score": scores.ravel(),
        }
    ).with_columns(pl.col("score").fill_nan(None))
    if weights is not None:
        frame = frame.with_columns(weight=pl.Series(np.repeat(weights, n_systems)))
    return frame


def pairformance_ballots() -> pl.DataFrame:
    """The pairformance dialogue example: voter = row index, system = column M0..M4."""
    table = pl.read_csv(PAIRFORMANCE).with_row_index("voter")
    return table.with_columns(pl.col("voter").cast(pl.String)).unpivot(
        index="voter", variable_name="system", value_name="score"
    )


@st.composite
def score_matrices(draw, max_voters: int = 12, max_systems: int = 5, missing: bool = True) -> np.ndarray:
    """Small voters x systems matrices on a coarse grid (many ties), optionally with NaN holes."""
    n_voters = draw(st.integers(1, max_voters))
    n_systems = draw(st.integers(2, max_systems))
    values = st.sampled_from([0.0, 1.0, 2.0, 3.0, np.nan] if missing else [0.0, 1.0, 2.0, 3.0])
    cells = draw(st.lists(values, min_size=n_voters * n_systems, max_size=n_voters * n_systems))
    return np.array(cells).reshape(n_voters, n_systems)


@st.composite
def count_matrices(draw, max_systems: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Random integer (wins, ties) matrices of 2..max_systems systems."""
    n = draw(st.integers(2, max_systems))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    wins = rng.integers(0, 20, size=(n, n)).astype(float)
    ties = np.triu(rng.integers(0, 5, size=(n, n)), 1).astype(float)
    ties = ties + ties.T
    np.fill_diagonal(wins, 0.0)
    return wins, ties
