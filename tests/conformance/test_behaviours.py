"""The behaviour inventory: every behaviour has a vector, tags are known, topic labels are confirmed by what the
steps exercised, the manifest records the coverage, and the classifiers tag exactly the rule a step took."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance.behaviours import BEHAVIOURS, BY_NAME, LABELS, UNREACHABLE, cache_step_behaviours, checked
from conformance.behaviours.coverage import manifest_entries, totals, unknown_tags
from conformance.behaviours.dispatcher import dispatcher_step_behaviours
from conformance.behaviours.inventory import confirms
from conformance.format import VECTORS_DIR, Vector, load_manifest
from conformance.scenarios.shapes import container, host_port, node, zone_labels
from conformance.traces import apply_cache_step
from spec.cache.cache import new_cache
from spec.cache.operations import AddNode, AddPod, AssumePod, Operation, RemovePod, UpdateNode, UpdatePod, World
from spec.dispatcher.api_calls import PodBindingCall, PodCondition, PodStatus, PodStatusPatchCall
from spec.dispatcher.call_queue import add, new_call_queue, pop
from spec.dispatcher.operations import AddCall
from spec.objects import PROTOCOL_UDP, AffinityTerms, Pod
from spec.quantities import resources_from
from spec.versions import PROFILES
from tests.conformance.cli import ksspec


def test_every_behaviour_is_exercised_by_a_vector(vectors: list[Vector]) -> None:
    counted = totals((v.tags.area, v.tags.behaviours) for v in vectors)
    gaps = [name for name, count in counted.items() if count == 0]
    assert not gaps, f"behaviours no vector exercises: {gaps}"


def test_manifest_records_the_coverage(vectors: list[Vector]) -> None:
    manifest = load_manifest()
    assert manifest["coverage"] == totals((v.tags.area, v.tags.behaviours) for v in vectors)
    assert list(manifest["coverage"]) == [b.name for b in BEHAVIOURS]


def test_docs_state_the_measured_coverage(vectors: list[Vector]) -> None:
    """docs/conformance.md says "Behaviours: **C of N** exercised" with C and N measured here."""
    counted = totals((v.tags.area, v.tags.behaviours) for v in vectors)
    covered = sum(1 for count in counted.values() if count)
    text = (Path(__file__).resolve().parents[2] / "docs" / "conformance.md").read_text()
    assert f"Behaviours: **{covered} of {len(BEHAVIOURS)}** exercised" in text


def test_inventory_names_are_unique_and_documented() -> None:
    names = [b.name for b in BEHAVIOURS]
    assert len(names) == len(set(names))
    assert not set(names) & set(LABELS) and not set(names) & set(UNREACHABLE)
    assert all(b.description and b.source and "." in b.name for b in BEHAVIOURS)
    assert all(label.description for label in LABELS.values())


def test_every_tag_is_a_behaviour_or_a_label(vectors: list[Vector]) -> None:
    assert unknown_tags((v.tags.area, v.tags.behaviours) for v in vectors) == []


def test_topic_labels_are_confirmed_by_observed_behaviours(vectors: list[Vector]) -> None:
    """A hand-chosen topic label (``ports``, ``expiry`` ...) must be borne out by a behaviour the steps exercised."""
    unconfirmed = []
    for vector in vectors:
        observed = [t for t in vector.tags.behaviours if t in BY_NAME]
        for tag in vector.tags.behaviours:
            label = LABELS.get(tag)
            if label is not None and label.confirmed_by and not any(confirms(label, b) for b in observed):
                unconfirmed.append(f"{vector.id}: {tag}")
    assert not unconfirmed, unconfirmed


def test_classifiers_refuse_names_outside_the_inventory() -> None:
    with pytest.raises(ValueError, match=r"resources\.imaginary"):
        checked(["resources.overhead", "resources.imaginary"])


def test_coverage_command_reports_every_behaviour(capsys: pytest.CaptureFixture[str]) -> None:
    assert ksspec("conformance", "coverage", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["covered"] == report["total"] == len(BEHAVIOURS) and report["gaps"] == []
    assert {row["name"] for row in report["behaviours"]} == set(BY_NAME)
    assert ksspec("conformance", "coverage") == 0
    assert f"{len(BEHAVIOURS)} of {len(BEHAVIOURS)} behaviours" in capsys.readouterr().out


def test_coverage_command_fails_on_a_gap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = load_manifest()
    dropped = {e["id"] for e in manifest["vectors"] if "resources.overhead" in e["behaviours"]}
    manifest["vectors"] = [e for e in manifest["vectors"] if e["id"] not in dropped]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    for name in {e["file"] for e in manifest["vectors"]}:  # the files must hold what the manifest lists, no more
        document = json.loads((VECTORS_DIR / name).read_text())
        document["vectors"] = [v for v in document["vectors"] if v["id"] not in dropped]
        (tmp_path / name).write_text(json.dumps(document))
    assert ksspec("conformance", "coverage", "--vectors", str(tmp_path)) == 1
    assert "gaps: resources.overhead" in capsys.readouterr().out.replace("\n", "")
    assert ksspec("conformance", "coverage", "--vectors", str(tmp_path / "missing")) == 2
    assert manifest_entries(load_manifest(VECTORS_DIR))


# --------------------------------------------------------------------------------------------
# The classifiers, step by step
# --------------------------------------------------------------------------------------------


def observed(ops: Sequence[Operation], profile: str = "v1.35") -> set[str]:
    """The behaviours of the last of ``ops``, applied from an empty cache."""
    world = World(new_cache(PROFILES[profile]))
    tags: set[str] = set()
    for op in ops:
        before = world
        world, outcome, returned = apply_cache_step(world, op)
        tags = cache_step_behaviours(before, op, world, outcome, returned)
    return tags


def pod(uid: str = "a", *containers: Any, **fields: Any) -> Pod:
    return Pod(uid, uid, node_name="n1", containers=containers or (container(cpu=100, memory=100),), **fields)


def test_init_containers_are_told_apart_by_what_decides_the_request() -> None:
    small = pod("a", container(cpu=500), init_containers=(container("i", cpu=200),))
    big = pod("b", container(cpu=100), init_containers=(container("i", cpu=700),))
    assert {"resources.init.not_added"} <= observed([AssumePod(small)])
    assert "resources.init.peak_wins" not in observed([AssumePod(small)])
    assert "resources.init.peak_wins" in observed([AssumePod(big)])
    assert not {"resources.init.not_added", "resources.sidecar.added"} & observed([AssumePod(pod())])


def test_sidecar_order_is_observed() -> None:
    before = pod("a", init_containers=(container("s", cpu=10, sidecar=True), container("i", cpu=20)))
    after = pod("b", init_containers=(container("i", cpu=20), container("s", cpu=10, sidecar=True)))
    assert {"resources.sidecar.added", "resources.sidecar.before_init"} <= observed([AssumePod(before)])
    assert "resources.sidecar.after_init" not in observed([AssumePod(before)])
    assert {"resources.sidecar.added", "resources.sidecar.after_init"} <= observed([AssumePod(after)])


def test_non_zero_defaults_and_explicit_zeros() -> None:
    assert {"resources.non_zero.default_cpu", "resources.non_zero.default_memory"} <= observed(
        [AssumePod(pod("a", container()))])
    zero = observed([AssumePod(pod("a", container(cpu=0, memory=0)))])
    assert "resources.non_zero.explicit_zero" in zero and "resources.non_zero.default_cpu" not in zero
    level = observed([AssumePod(pod("a", container(), pod_level_requests=resources_from({"cpu": 300})))])
    assert {"resources.pod_level.replaces", "resources.non_zero.pod_level_fallback"} <= level


def test_resource_names_are_classified_like_the_scheduler() -> None:
    names = {"example.com/gpu": 1, "hugepages-1Gi": 1, "kubernetes.io/x": 1, "attachable-volumes-csi": 1, "foo": 1}
    tags = observed([AssumePod(pod("a", container(extra=names)))])
    assert {"resources.extended", "resources.hugepages", "resources.prefixed_native", "resources.attachable_volumes",
            "resources.invalid_name_ignored"} <= tags
    assert "resources.invalid_name_ignored" not in observed([AssumePod(pod("a", container(extra={"a.io/b": 1})))])


def test_ports_are_classified_per_container_kind() -> None:
    shaped = pod("a", container(ports=(host_port(80, PROTOCOL_UDP, "10.0.0.1"), host_port(0, container_port=81))),
                 init_containers=(container("i", ports=(host_port(90),)),))
    tags = observed([AssumePod(shaped)])
    assert {"ports.recorded", "ports.udp", "ports.host_ip", "ports.container_port_only", "ports.init_ignored"} <= tags
    assert not {"ports.default_ip", "ports.sidecar_recorded"} & tags
    one, two = pod("a", container(ports=(host_port(80),))), pod("b", container(ports=(host_port(80),)))
    assert "ports.shared_freed" in observed([AddPod(one), AddPod(two), RemovePod(one)])
    assert "ports.shared_freed" not in observed([AddPod(one), RemovePod(one)])


def test_claims_and_affinity() -> None:
    assert "pvc.repeated_in_pod" in observed([AddPod(pod("a", pvc_claims=("x", "x")))])
    assert "pvc.repeated_in_pod" not in observed([AddPod(pod("a", pvc_claims=("x", "y")))])
    assert "affinity.empty_listed" in observed([AddPod(pod("a", pod_affinity=AffinityTerms()))])
    assert "affinity.nil_not_listed" in observed([AddPod(pod("a"))])
    preferred = observed([AddPod(pod("a", pod_anti_affinity=AffinityTerms(preferred=1)))])
    assert "affinity.preferred_anti_only" in preferred and "affinity.required_anti" not in preferred
    required = pod("a", pod_affinity=AffinityTerms(required=1))
    stale = Pod("a", "a", node_name="n1", containers=required.containers)
    assert "affinity.pruned_by_argument" in observed([AddPod(required), UpdatePod(stale, required)])
    assert "affinity.pruned_by_argument" not in observed([AddPod(required), UpdatePod(required, required)])


def test_zone_labels_and_tree_moves() -> None:
    beta = node("n", labels=zone_labels(zone="ga", beta_zone="beta"))
    assert {"node_tree.beta_zone_label", "node_tree.beta_label_wins"} <= observed([AddNode(beta)])
    same = node("n", labels=zone_labels(zone="z", beta_zone="z"))
    assert "node_tree.beta_label_wins" not in observed([AddNode(same)])
    moved = node("n", labels=zone_labels(zone="z2"))
    first = node("n", labels=zone_labels(zone="z1"))
    assert "node_tree.zone_change_moves" in observed([AddNode(first), UpdateNode(first, moved)])
    assert "node_tree.zone_unchanged" in observed([AddNode(first), UpdateNode(first, first)])
    assert "node_tree.entered_twice" in observed([AddNode(first), AddNode(moved)])


def test_dispatcher_resolutions() -> None:
    queue = new_call_queue()
    patch = PodStatusPatchCall("u", PodStatus(), PodCondition("PodScheduled", "False"))
    binding = PodBindingCall("u", "n")
    queue, _ = add(queue, patch)
    after, error = add(queue, binding)
    assert dispatcher_step_behaviours(queue, AddCall(binding), after, error) == {
        "dispatcher.add.more_relevant_overwrites"}
    after2, error2 = add(after, patch)
    assert dispatcher_step_behaviours(after, AddCall(patch), after2, error2) == {
        "dispatcher.add.less_relevant_skipped"}
    running, _ = pop(after)
    waiting = new_call_queue(PROFILES["pr141745"])
    waiting, _ = add(waiting, patch)
    waiting, _ = pop(waiting)
    behind, error3 = add(waiting, binding)
    assert dispatcher_step_behaviours(waiting, AddCall(binding), behind, error3) == {
        "dispatcher.add.waits_behind_in_flight"}
    assert running.in_flight


def test_queue_steps_are_tagged_with_the_rows_of_the_pod_place_table() -> None:
    """Each change of place is its table row; a refused hand-back and an event recorded in flight are tagged; an Add
    of a pod in flight (outside the scheduler's contract: no row) is no behaviour."""
    from conformance.behaviours.queue import EVENT_RECORDED, HAND_BACK_REFUSED, TABLE_NAMES, queue_step_behaviours
    from spec.objects import Pod
    from spec.queue.events import EVENT_NODE_ADD
    from spec.queue.operations import (
        QueueAdd,
        QueueAddUnschedulable,
        QueueMoveAll,
        QueueOperation,
        QueuePop,
        apply_queue_operation,
        new_queue_world,
    )
    from spec.versions import V1_35

    a = Pod("a", "a")
    fit = frozenset({"NodeResourcesFit"})
    world = new_queue_world(V1_35)
    tags: list[set[str]] = []
    ops: list[QueueOperation] = [QueueAdd(a), QueuePop(), QueueAdd(a), QueueMoveAll(EVENT_NODE_ADD),
                                 QueueAddUnschedulable(a, fit)]
    for op in ops:
        after, outcome = apply_queue_operation(world, op)
        tags.append(queue_step_behaviours(world, op, after, outcome))
        world = after
    assert tags[0] == {"queue.add.absent_to_active"} and tags[1] == {"queue.pop.active_to_inflight"}
    assert tags[2] == set()  # Add of the pod in flight puts it in activeQ: not a row of the table
    assert tags[3] == {EVENT_RECORDED}
    assert tags[4] == {HAND_BACK_REFUSED}  # it is in activeQ already
    assert len(TABLE_NAMES) == 26 and all(name in BY_NAME for name in TABLE_NAMES)
