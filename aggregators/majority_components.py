"""Blocks of systems that every Kemeny ranking keeps in a fixed order.

The graph has an edge ``i -> j`` whenever ``i`` does not strictly lose to
``j`` in the weighted majority (``margin(i, j) >= 0``, ties and pairs that no
voter compared included).  Every pair has an edge one way or both, so the
strongly connected components are linearly ordered: every system of an
earlier component strictly beats every system of a later one.  By the
extended Condorcet criterion every Kemeny ranking then puts the earlier
component above the later one (Truchon, 1998, "An extension of the Condorcet
criterion and Kemeny orders", cahier 98-15, Université Laval; Conitzer,
Davenport and Kalagnanam, 2006, "Improved bounds for computing Kemeny
rankings", AAAI): moving every system of the earlier component above those of
the later one, keeping the order inside each, strictly lowers the cost of a
ranking that mixes them.  Because ties keep two systems together, the split
never fixes the order of a pair that is not strictly decided.
"""

from __future__ import annotations

import numpy as np

def majority_blocks(beats: np.ndarray) -> list[np.ndarray]:
    """The strongly connected components of the does-not-lose graph, best first, members in index order.

    ``beats[i, j]``: ``i`` strictly beats ``j`` in the weighted majority.
    """
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import connected_components

    n = beats.shape[0]
    if n == 0:
        return []
    not_losing = ~beats.T
    np.fill_diagonal(not_losing, False)
    n_blocks, label = connected_components(csr_array(not_losing), directed=True, connection="strong")
    # a block's place = how many systems outside it beat its members (the same for every member)
    outside = label[:, None] != label[None, :]
    beaten_by = (beats & outside).sum(axis=0)
    place = np.zeros(n_blocks, dtype=np.int64)
    place[label] = beaten_by
    return [np.flatnonzero(label == block) for block in np.argsort(place, kind="stable")]
