"""The ``cycle.failure.condition.note_limit.*`` vectors sit on truncateMessage's boundary, as their names say."""

from __future__ import annotations

from conformance.format import load_vectors
from spec.cycle.failure import NOTE_LENGTH_LIMIT, TRUNCATION_SUFFIX


def _failure(vector_id: str) -> dict[str, str]:
    (vector,) = [v for v in load_vectors() if v.id == vector_id]
    observation = vector.steps[-1].expect.observation
    assert isinstance(observation, dict)
    failures = observation["failures"]
    assert isinstance(failures, dict) and isinstance(failures["p"], dict)
    return {key: str(value) for key, value in failures["p"].items()}


def test_a_message_of_exactly_the_limit_is_kept_whole() -> None:
    failure = _failure("cycle.failure.condition.note_limit.exact")
    assert len(failure["message"].encode()) == NOTE_LENGTH_LIMIT
    assert failure["event"] == failure["message"]


def test_a_message_one_byte_over_the_limit_is_cut() -> None:
    failure = _failure("cycle.failure.condition.note_limit.exceeded_by_one")
    assert len(failure["message"].encode()) == NOTE_LENGTH_LIMIT + 1
    assert failure["event"] == failure["message"][: NOTE_LENGTH_LIMIT - len(TRUNCATION_SUFFIX)] + TRUNCATION_SUFFIX
