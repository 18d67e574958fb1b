"""Kubernetes' own table tests, ported case by case as curated vectors (each description names the Go test and case).

One module per Go test file: :mod:`.framework_types` (framework/types_test.go), :mod:`.node_tree`
(node_tree_test.go and snapshot_test.go), :mod:`.cache` (cache_test.go), :mod:`.call_queue` (call_queue_test.go),
:mod:`.scheduling_queue` (scheduling_queue_test.go; the queue area's scenarios draw on it), :mod:`.taint_toleration`,
:mod:`.balanced_allocation`, :mod:`.image_locality` and :mod:`.node_affinity` (the Score cases of the plugins' tests),
:mod:`.interpodaffinity_filtering` and :mod:`.podtopologyspread_filtering` (the two plugins' filtering_test.go, as
cycle vectors), :mod:`.interpodaffinity_scoring` and :mod:`.podtopologyspread_scoring` (their
scoring_test.go: data for the score functions' tests, and cycle vectors where the cycle's cluster can hold the
case).
The expected outcomes are the spec's; ``tests/conformance/test_ported.py`` checks that the spec agrees with the
expectations the Go tests state.
"""

from __future__ import annotations

from conformance.ported import (
    balanced_allocation,
    cache,
    call_queue,
    framework_types,
    image_locality,
    interpodaffinity_filtering,
    interpodaffinity_scoring,
    node_affinity,
    node_tree,
    podtopologyspread_filtering,
    podtopologyspread_scoring,
    taint_toleration,
)
from conformance.traces import Scenario


def ported() -> list[Scenario]:
    """Every ported table case."""
    return [*framework_types.scenarios(), *node_tree.scenarios(), *cache.scenarios(), *call_queue.scenarios(),
            *interpodaffinity_filtering.scenarios(), *podtopologyspread_filtering.scenarios(),
            *taint_toleration.scenarios(), *balanced_allocation.scenarios(), *image_locality.scenarios(),
            *interpodaffinity_scoring.scenarios(), *podtopologyspread_scoring.scenarios(), *node_affinity.scenarios()]
