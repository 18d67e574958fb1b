"""Ported from pkg/scheduler/backend/cache/node_tree_test.go and snapshot_test.go.

The node tree is driven through the cache (AddNode, RemoveNode, UpdateNode) and observed through the snapshot: the
first ``update_snapshot`` of a vector rebuilds the list in node-tree order, so each case ends with one. Where the
Go test calls the tree directly on a node the cache does not know, the port says how the cache differs (RemoveNode
of an unknown node is refused before the tree, with NodeNotFound). ``NewSnapshot(pods, nodes)`` is AddNode of each
node and AddPod of each pod, then an update. Not ported: TestNodeTree_List_Exhausted (it corrupts numNodes by hand;
:data:`conformance.behaviours.inventory.UNREACHABLE`), TestCreateImageExistenceMap and TestGetNodeImageStates as
functions (their cases are ported as the image summaries of the nodes).
"""

from __future__ import annotations

from typing import Final

from conformance.ported.common import go_case
from conformance.scenarios.shapes import MI, container, host_port, zone_labels
from conformance.traces import Scenario
from spec.cache.operations import AddNode, AddPod, RemoveNode, UpdateNode, UpdateSnapshot
from spec.frozenmap import FrozenMap
from spec.objects import AffinityTerms, ContainerImage, Node, Pod

TREE: Final = "backend/cache/node_tree_test.go"
SNAP: Final = "backend/cache/snapshot_test.go"
S: Final = UpdateSnapshot()

ALL_NODES: Final = (
    Node("node-0"),
    Node("node-1", labels=zone_labels(region="region-1")),
    Node("node-2", labels=zone_labels(zone="zone-2")),
    Node("node-3", labels=zone_labels(region="region-1", zone="zone-2")),
    Node("node-4", labels=zone_labels(region="region-1", zone="zone-2")),
    Node("node-5", labels=zone_labels(region="region-1", zone="zone-3")),
    Node("node-6", labels=zone_labels(region="region-2", zone="zone-2")),
    Node("node-7", labels=zone_labels(region="region-2", zone="zone-2")),
    Node("node-8", labels=zone_labels(region="region-2", zone="zone-2")),
    Node("node-9", labels=zone_labels(region="region-2", zone="zone-2", beta_region="region-2", beta_zone="zone-2")),
    Node("node-10", labels=zone_labels(beta_region="region-2", beta_zone="zone-3")),
)
"""node_tree_test.go's ``allNodes``."""


def _tree(test: str, case: str, ops: list[object], note: str = "") -> Scenario:
    labels = ("zones",) if any(isinstance(op, AddNode | UpdateNode) for op in ops) else ()
    return go_case("node_tree", TREE, test, case, [*ops, S], *labels, note=note)


def node_tree() -> list[Scenario]:
    n = ALL_NODES
    add = [
        ("single node no labels", n[:1]), ("same node specified twice", (n[0], n[0])),
        ("mix of nodes with and without proper labels", n[:4]),
        ("mix of nodes with and without proper labels and some zones with multiple nodes", n[:7]),
        ("nodes also using deprecated zone/region label", n[9:]),
    ]
    out = [_tree("TestNodeTree_AddNode", case, [AddNode(x) for x in nodes]) for case, nodes in add]
    remove = [
        ("remove a single node with no labels", n[:7], n[:1], ""),
        ("remove a few nodes including one from a zone with multiple nodes", n[:7], n[1:4], ""),
        ("remove all nodes", n[:7], n[:7], ""),
        ("remove non-existing node", (), n[:5],
         "the cache refuses each removal before the tree, with NodeNotFound (the tree's error is NodeNotInTree)"),
    ]
    out += [_tree("TestNodeTree_RemoveNode", case, [*map(AddNode, existing), *map(RemoveNode, removed)], note)
            for case, existing, removed, note in remove]
    moved = Node("node-0", labels=zone_labels(region="region-1", zone="zone-2"))
    update = [
        ("update a node without label", n[:7], n[0], moved),
        ("update the only existing node", n[:1], n[0], moved),
        ("update non-existing node", n[:1], Node("nonexisting-node"),
         Node("node-new", labels=zone_labels(region="region-1", zone="zone-2"))),
    ]
    out += [_tree("TestNodeTree_UpdateNode", case, [*map(AddNode, existing), UpdateNode(old, new)])
            for case, existing, old, new in update]
    listing = [("empty tree", ()), ("one node", n[:1]), ("four nodes", n[:4]), ("all nodes", n[:9])]
    out += [_tree("TestNodeTree_List", case, list(map(AddNode, nodes))) for case, nodes in listing]
    multi: list[tuple[str, tuple[Node, ...], tuple[Node, ...], str]] = [
        ("add and remove all nodes", n[2:9], n[2:9], "aaarrr"),
        ("add and remove some nodes", n[2:9], n[2:9], "aaar"),
        ("remove three nodes", n[2:9], n[2:9], "aaarrra"),
        ("add more nodes to an exhausted zone", (*n[4:9], n[3]), (), "aaaaaa"),
        ("remove zone and add new", (*n[3:5], *n[6:8]), n[3:5], "aaraar"),
    ]
    for case, to_add, to_remove, operations in multi:
        adds, removes = iter(to_add), iter(to_remove)
        ops: list[object] = [AddNode(next(adds)) if o == "a" else RemoveNode(next(removes)) for o in operations]
        out.append(_tree("TestNodeTreeMultiOperations", case, ops))
    return out


def snapshot() -> list[Scenario]:
    mb = MI
    image_nodes = (Node("node-0", images=(ContainerImage(("gcr.io/10:v1",), 10 * mb),
                                          ContainerImage(("gcr.io/200:v1",), 200 * mb))),
                   Node("node-1", images=(ContainerImage(("gcr.io/10:v1",), 10 * mb),)))
    existence = [
        ("case_0", (Node("node-0", images=(ContainerImage(("gcr.io/10:v1",), 10 * mb),)),
                    Node("node-1", images=(ContainerImage(("gcr.io/10:v1",), 10 * mb),
                                           ContainerImage(("gcr.io/200:v1",), 200 * mb))))),
        ("case_1", (Node("node-0"), Node("node-1", images=(ContainerImage(("gcr.io/10:v1",), 10 * mb),
                                                          ContainerImage(("gcr.io/200:v1",), 200 * mb))))),
    ]
    out = [go_case("snapshot", SNAP, "TestGetNodeImageStates", "case_0", [*map(AddNode, image_nodes), S], "images",
                   note="the image summaries of node-0 with gcr.io/10:v1 also on node-1"),
           go_case("snapshot", SNAP, "TestGetNodeImageStates", "case_1",
                   [AddNode(Node("node-1", images=(ContainerImage(("gcr.io/10:v1",), 10 * mb),))),
                    AddNode(Node("node-0")), S], "images", note="a node without images has no summaries")]
    out += [go_case("snapshot", SNAP, "TestCreateImageExistenceMap", case, [*map(AddNode, nodes), S], "images",
                    note="the existence map is observed as each node's image summaries")
            for case, nodes in existence]

    def named(name: str, ns: str, node: str = "", claim: str = "", **fields: object) -> Pod:
        return Pod(f"{ns}-{name}", name, ns, node, pvc_claims=(claim,) if claim else (), **fields)  # type: ignore[arg-type]

    pvc_cases = [
        ("empty pods list", []),
        ("pods not scheduled", [named("foo", "foo"), named("bar", "bar")]),
        ("scheduled pods that do not use any PVC", [named("foo", "foo", "node-1"), named("bar", "bar", "node-2")]),
        ("scheduled pods that use PVC", [named("foo", "foo", "node-1", "pvc1"), named("bar", "bar", "node-2", "pvc2")]),
    ]
    note = "the pods are added with their nodes; UIDs are namespace-name (the Go pods have none)"
    out += [go_case("snapshot", SNAP, "TestCreateUsedPVCSet", case,
                    [*(AddNode(Node(name)) for name in sorted({p.node_name for p in pods} - {""})),
                     *map(AddPod, pods), S], *_topics(pods), note=note) for case, pods in pvc_cases]
    port = named("foo", "foo", "node-0", containers=(container(ports=(host_port(8080),)),))
    anti = named("baz", "ns", "node-0", pod_anti_affinity=AffinityTerms(required=1))
    aff = [named("bar", "ns", "node-2", pod_affinity=AffinityTerms(required=1)),
           Pod("ns-bar-2", "bar", "ns", "node-0", pod_affinity=AffinityTerms(required=1))]
    pvcs = [named("foo", "foo", "node-0", "pvc0"), named("bar", "bar", "node-1", "pvc1"),
            named("baz", "baz", "node-2", "pvc2")]
    annotated = named("foo", "ns", "node-1")
    three = [Node("node-0"), Node("node-1"), Node("node-2")]
    new_snapshot: list[tuple[str, list[Node], list[Pod]]] = [
        ("no pods no nodes", [], []),
        ("single pod single node", [Node("node-0")], [port]),
        ("multiple nodes, pods with PVCs", three, pvcs),
        ("multiple nodes, pod with affinity", [Node("node-0"), Node("node-1"),
                                               Node("node-2", labels=FrozenMap({"baz": "qux"}))], [annotated, aff[0]]),
        ("multiple nodes, pod with affinity, pod with anti-affinity",
         [Node("node-0", labels=FrozenMap({"key": "value"})), Node("node-1", labels=FrozenMap({"another": "label"}))],
         [aff[1], anti]),
    ]
    out += [go_case("snapshot", SNAP, "TestNewSnapshot", case, [*map(AddNode, nodes), *map(AddPod, pods), S],
                    *_topics(pods), note="NewSnapshot is the first update of a cache holding the nodes and pods")
            for case, nodes, pods in new_snapshot]
    return out


def _topics(pods: list[Pod]) -> tuple[str, ...]:
    """The topic labels a case's pods make true: claims, affinity."""
    claims = ("pvc",) if any(p.pvc_claims and p.node_name for p in pods) else ()
    return claims + (("affinity",) if any(p.pod_affinity or p.pod_anti_affinity for p in pods) else ())


def scenarios() -> list[Scenario]:
    """Every port of node_tree_test.go and snapshot_test.go."""
    return [*node_tree(), *snapshot()]
