"""bench/kubernetes_peer.py: both schedulers get the same objects; without Go the Kubernetes rows say why; with the
peer built, Kubernetes' scheduler binds every pod of a tiny workload (timings are not checked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import kubernetes_peer as peer

pytestmark = pytest.mark.heavy  # the benchmark harness, not refinement: ksspec verify's fast profile leaves it out


def test_the_basic_workload_is_scheduler_perfs_templates() -> None:
    w = peer.workload("basic", 4, 6)
    assert {(n.allocatable["cpu"], n.allocatable["memory"], n.allocatable["pods"]) for n in w.nodes} == {
        (4_000, 32 * 2**30, 110)}
    assert {(p.containers[0].requests["cpu"], p.containers[0].requests["memory"]) for p in w.pods} == {
        (100, 500 * 2**20)}
    assert "4 CPU/32Gi/110 pods" in w.describe() and "100m/500Mi" in w.describe()
    with pytest.raises(ValueError, match="unknown workload"):
        peer.workload("mixed", 1, 1)


def test_the_exported_file_holds_the_same_objects(tmp_path: Path) -> None:
    w = peer.workload("identical", 3, 5)
    path = tmp_path / "w.json"
    peer.export(w, path, bound=True)
    data = json.loads(path.read_text())
    assert [n["name"] for n in data["nodes"]] == [n.name for n in w.nodes]
    assert [n["milli_cpu"] for n in data["nodes"]] == [n.allocatable["cpu"] for n in w.nodes]
    assert dict(w.nodes[1].labels) == data["nodes"][1]["labels"]
    assert [(p["uid"], p["milli_cpu"], p["memory"]) for p in data["pods"]] == [
        (p.uid, p.containers[0].requests["cpu"], p.containers[0].requests["memory"]) for p in w.pods]
    assert [p["node_name"] for p in data["pods"]] == ["node-0", "node-1", "node-2", "node-0", "node-1"]


def test_without_go_the_kubernetes_rows_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shutil.which", lambda _: None)
    monkeypatch.setattr(peer, "SIZES", {"basic": (6, 4, 4), "identical": (5, 3, 3)})
    rows = peer.run()
    refimpl = [row for row in rows if row.get("row", "").startswith("refimpl ")]
    assert len(refimpl) == len(peer.CASES) and all(row["bound"] in (3, 4) for row in refimpl)
    assert not any(row.get("row", "").startswith("kubernetes ") for row in rows)
    assert any(row["result"] == "skipped: go not installed" for row in rows)
    assert any(row["result"] == "270 pods/s" for row in rows)  # scheduler_perf's threshold, v1.35.0


def test_snapshot_only_prints_the_three_updatesnapshot_rows_alone(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("shutil.which", lambda _: None)
    monkeypatch.setattr(peer, "SIZES", {"basic": (6, 4, 4), "identical": (5, 3, 3)})
    assert peer.main(["--snapshot-only", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["parameters"].split(": ")[1].split(";")[0] for row in rows] == [
        "full (into a new snapshot)", "one node changed", "nothing changed"]
    assert all(row["result"] == "skipped: go not installed" for row in rows)


def test_the_snapshot_profile_counts_the_clones_updatesnapshot_makes() -> None:
    """UpdateSnapshot clones every node into a new snapshot, only the changed one after one pod was added, and none
    when nothing changed (Cache.UpdateSnapshot walks the list to the first generation already seen)."""
    w = peer.workload("basic", 12, 5)

    def clones(case: str) -> float:
        profile = peer.snapshot_profile(w, case, rounds=20, top=1000)
        return float(sum(f["calls_per_update"] for f in profile["functions"] if f["function"] == "node_info.snapshot"))

    assert clones("full_seconds") == 12
    assert clones("one_changed_seconds") == 1
    assert clones("unchanged_seconds") == 0
    line = peer.snapshot_explanation(w, "unchanged_seconds")
    assert "Python calls per update, no lock" in line and "the lock's with" not in line  # the lock-free path
    line = peer.snapshot_explanation(w, "one_changed_seconds")
    assert "Python calls per update" in line and "the lock's with" in line
    with pytest.raises(ValueError, match="case must be one of"):
        peer.snapshot_profile(w, "half")


@pytest.fixture(scope="module")
def current_peer() -> None:
    """The Go peer rebuilt from the current source when it was built before (a warm build takes seconds; a stale
    binary once ran an older -plugins); skipped when it never was (the first build compiles Kubernetes' scheduler)."""
    if not peer.BINARY.is_file():
        pytest.skip("the Go peer is not built (make bench builds it)")
    why_not = peer.build_peer()
    if why_not is not None:
        pytest.skip(why_not)


@pytest.mark.usefixtures("current_peer")
def test_the_go_peer_binds_every_pod_and_times_snapshots(tmp_path: Path) -> None:
    w = peer.workload("basic", 6, 8)
    path = tmp_path / "w.json"
    peer.export(w, path)
    mine = peer.refimpl_plugins()
    for plugins, names in ((",".join(mine), ["PrioritySort", *mine]), ("default", None)):
        result = peer.peer(path, "-mode", "schedule", "-plugins", plugins, "-batching=false")
        assert result["bound"] == 8 and result["gomaxprocs"] == 1
        assert result["plugin_names"] == names if names is not None else len(result["plugin_names"]) == 19
    peer.export(w, path, bound=True)
    snapshot = peer.peer(path, "-mode", "snapshot", "-rounds", "5")
    assert snapshot["nodes"] == 6 and snapshot["pods"] == 8 and snapshot["full_seconds"] > 0


def test_the_peer_runs_refimpls_own_plugins() -> None:
    """The Kubernetes side of 'refimpl's plugins' is refimpl's default framework, read from it, not a list kept by
    hand (a stale list of 8 once compared refimpl's 12 plugins with Kubernetes' 8)."""
    names = peer.refimpl_plugins()
    assert names[0] == "NodeUnschedulable" and names[-1] == "DefaultBinder"
    assert {"PodTopologySpread", "InterPodAffinity", "NodeResourcesBalancedAllocation"} <= set(names)


@pytest.mark.usefixtures("current_peer")
def test_the_go_peer_refuses_a_plugin_the_default_profile_lacks(tmp_path: Path) -> None:
    w = peer.workload("basic", 2, 2)
    path = tmp_path / "w.json"
    peer.export(w, path)
    with pytest.raises(RuntimeError, match="NoSuchPlugin"):
        peer.peer(path, "-mode", "schedule", "-plugins", "NodeName,NoSuchPlugin", "-batching=false")
