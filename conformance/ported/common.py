"""What the ported Kubernetes table tests share: the vector id and description naming the Go test and case."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from conformance.operations import ClusterAddNode, CreatePod, SchedulePod
from conformance.traces import ALL_PROFILES, EXPIRY_PROFILES, Scenario

K8S_TESTS = "k8s.io/kubernetes@v1.35.0"


def slug(text: str, limit: int = 64) -> str:
    """A vector-id component from a Go test or case name: lower case, runs of other characters as ``_``."""
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", text)
    return re.sub(r"[^a-z0-9]+", "_", words.lower()).strip("_")[:limit].rstrip("_")


def go_case(area: str, go_file: str, test: str, case: str, ops: Sequence[Any], *labels: str, ttl: int = 0,
            note: str = "") -> Scenario:
    """A scenario porting table case ``case`` of Go test ``test`` (in ``go_file`` of Kubernetes v1.35.0).

    Its id is ``<area>.ported.<test>.<case>``; its description names the test and the case, and says how the
    port departs from the Go test where it must (``note``). Expectations are the spec's, as for every vector.
    """
    description = f"{test} / {case} ({go_file}, {K8S_TESTS})" + (f"; {note}" if note else "")
    return Scenario(f"{area}.ported.{slug(test.removeprefix('Test'))}.{slug(case)}", description, ops, area=area,
                    behaviours=("ported", *labels), ttl=ttl, profiles=EXPIRY_PROFILES if ttl else ALL_PROFILES)


GO_SCORES: dict[str, tuple[str, dict[str, int] | None]] = {}
"""For each ported Score case, by its vector id: the plugin and the score the Go test expects for each node (after
NormalizeScore, before the weight; None: PreScore skips, so no node has the plugin's score).
``tests/conformance/test_ported.py`` compares the vector's decision with it."""


def score_case(go_file: str, test: str, case: str, nodes: Sequence[Any], pod: Any, place_on: str, plugin: str,
               expected: dict[str, int], note: str = "") -> Scenario:
    """A cycle scenario porting a Score table case: the nodes join, the pod is created, and a scheduling cycle runs
    (``schedule_pod`` onto ``place_on``, which must be feasible); its decision holds every feasible node's scores.
    The Go test calls the plugin's Score on each node without filtering, so the nodes here get room for the pod."""
    ops = [*(ClusterAddNode(n) for n in nodes), CreatePod(pod), SchedulePod(pod.uid, place_on)]
    scenario = go_case("cycle", go_file, test, case, ops, "score", note=note)
    GO_SCORES[scenario.id] = (plugin, expected)
    return scenario
