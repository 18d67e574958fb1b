"""The judge of every mutant: the conformance suite against the bundled reference adapter, one test per vector.

``ksspec conform --impl refimpl`` semantics: each vector runs in-process against
:class:`conformance.adapters.refimpl_adapter.RefimplAdapter` under the profile the runner would choose, and the
test fails when the runner's verdict is anything but a pass. mutmut runs this module only (never ``tests/``), and
one test per vector lets it run, for each mutant, only the vectors that reach the mutated function.
"""

from __future__ import annotations

import pytest

from conformance.format import Vector, load_vectors
from conformance.runner import Outcome, Target, Worker
from refimpl.scheduler.framework import node_slice

VECTORS = sorted(load_vectors(), key=lambda v: v.id)


@pytest.fixture(autouse=True)
def _fresh_process_caches() -> None:
    """Each vector starts with the caches a fresh process has: mutmut forks its workers after the clean run, which
    filled them, so a mutant of the code that fills one (``node_slice.flagged``'s translation tables) would
    otherwise never run; with the cache cleared, it runs on every vector that reaches it."""
    node_slice._TABLES.clear()


@pytest.mark.parametrize("vector", VECTORS, ids=[v.id for v in VECTORS])
def test_vector(vector: Vector) -> None:
    worker = Worker(Target())
    try:
        result = worker.run(vector)[-1]  # the vector's own result is last (amendments of earlier ones precede it)
    finally:
        worker.close()
    assert result.outcome is Outcome.PASS, "\n".join([result.detail, *result.diff])
