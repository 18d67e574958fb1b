"""conformance.traces.traces_by_profile runs a scenario once per group of profiles that agree on the fields the run
read: it must give what running every profile gives, and must run again for a profile that differs in one of them."""

from __future__ import annotations

import dataclasses
import operator

import pytest

from conformance import traces
from conformance.scenarios.cache import curated
from conformance.scenarios.cycle import curated_cluster, curated_cycle
from conformance.scenarios.mutation import curated as mutation_curated
from conformance.scenarios.queue import curated_queue
from conformance.traces import RecordingProfile, Scenario, steps_under, traces_by_profile
from spec.valuetypes import replace
from spec.versions import PROFILES, V1_34, V1_35, V1_37


def _scenarios() -> list[Scenario]:
    """Every area, version-dependent ones among them (cache.forget.twice, the dispatcher's merge, the queue's)."""
    return [*curated(), *curated_cycle(), *curated_cluster(), *curated_queue(), *mutation_curated()]


def test_shared_runs_give_what_every_profile_gives() -> None:
    shared_some = 0
    for scenario in _scenarios():
        plain = {name: steps_under(scenario, PROFILES[name]) for name in traces._applicable(scenario)}
        assert traces_by_profile(scenario) == plain, scenario.id
        shared_some += len({repr(t) for t in plain.values()}) < len(plain)
    assert shared_some > 100  # most scenarios behave alike under several profiles


def test_a_profile_that_differs_in_a_field_read_runs_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """cache.forget.twice reads forget_unknown_pod_is_error (v1.34 differs from v1.35) and not_assumed_message (v1.37
    differs from v1.36); v1.36 repeats v1.35's run and pr141745 (which differs from v1.37 in the dispatcher only)
    v1.37's."""
    runs: list[str] = []

    def counted(scenario: Scenario, profile: RecordingProfile) -> traces.Trace | None:
        runs.append(object.__getattribute__(profile, "name"))  # not a read: it would count as one
        return steps_under(scenario, profile)

    monkeypatch.setattr(traces, "steps_under", counted)
    scenario = next(s for s in curated() if s.id == "cache.forget.twice")
    result = traces_by_profile(scenario)
    assert runs == ["v1.34", "v1.35", "v1.37"]
    assert result["v1.36"] is result["v1.35"] and result["pr141745"] is result["v1.37"]
    assert result["v1.34"] != result["v1.35"]


def test_recording_profile_records_reads() -> None:
    recording = RecordingProfile(V1_35)
    assert RecordingProfile.reads(recording) == {}
    assert recording.assumed_pod_expiry is True and recording.name == "v1.35"
    assert RecordingProfile.reads(recording) == {"assumed_pod_expiry": True, "name": "v1.35"}


@pytest.mark.parametrize("use", [hash, repr, lambda p: p == V1_35, lambda p: operator.ne(V1_34, p), dataclasses.asdict,
                                 lambda p: p.__dict__, dataclasses.replace, lambda p: replace(p, name="x")])
def test_whole_profile_uses_count_as_reading_every_field(use: object) -> None:
    recording = RecordingProfile(V1_35)
    assert callable(use)
    use(recording)
    assert RecordingProfile.reads(recording) == dataclasses.asdict(V1_35)


def test_recording_profile_compares_and_hashes_as_its_original() -> None:
    recording = RecordingProfile(V1_37)
    assert recording == V1_37 and operator.eq(V1_37, recording) and recording == RecordingProfile(V1_37)
    assert recording != V1_35
    assert hash(recording) == hash(V1_37) and repr(recording) == repr(V1_37)
    assert isinstance(recording, type(V1_37))
