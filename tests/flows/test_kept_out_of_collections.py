"""The ingest run keeps its objects out of Python's cycle collections, batch by batch, without keeping garbage."""

from __future__ import annotations

import gc
import weakref

from scorehouse.flows.ingest import kept_out_of_collections


class Node:
    """An object that can be part of a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref:
    """A garbage cycle (two nodes referring to each other, nothing else to them); a weak reference to one."""
    first, second = Node(), Node()
    first.other, second.other = second, first
    return weakref.ref(first)


def test_a_cycle_made_during_a_batch_is_collected_and_the_run_leaves_nothing_frozen():
    enabled = gc.isenabled()
    gc.disable()  # no automatic collection between the steps: each is the code's own
    try:
        collected_batch_by_batch()
    finally:
        if enabled:
            gc.enable()


def collected_batch_by_batch() -> None:
    before = gc.get_freeze_count()
    kept = Node()
    with kept_out_of_collections() as keep:
        frozen = gc.get_freeze_count()
        assert frozen > before  # what the run made so far (here: the test's objects) is out of collections
        garbage = cycle()
        assert garbage() is not None  # only the cycle collector frees it
        keep()
        assert garbage() is None  # collected before the batch's objects were frozen, not kept with them
        assert gc.get_freeze_count() >= frozen
        later = cycle()
    assert gc.get_freeze_count() == before  # everything back with the collector
    gc.collect()
    assert later() is None and kept.other is None
