"""refimpl's own pod request computation agrees with the spec's on arbitrary pods.

refimpl does not import ``spec.resources`` (the spec is the oracle), so this differential test is what ties the two
``PodInfo.CalculateResource`` implementations together: every resource-name class (native, extended, hugepages,
prefixed native, attachable volumes, ignored), sidecars and plain init containers in any order, explicit zero
requests, pod-level requests (supported or not) with the feature gate on and off, and overhead.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.adapters.refimpl_abstraction import abstract_resource
from refimpl.cache import HostPortInfo, Resource, compute_pod_resource
from refimpl.cache.resources import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, get_host_ports
from spec import resources as spec_resources
from spec.cache.nodeinfo import host_port
from spec.cycle.filters import ports_conflict
from spec.objects import Container, ContainerPort, Pod
from spec.quantities import resources_from

NAMES = (
    "cpu", "memory", "ephemeral-storage", "pods", "example.com/gpu", "hugepages-2Mi", "hugepages-1Gi",
    "kubernetes.io/batch-cpu", "attachable-volumes-aws-ebs", "not-a-scalar", "requests.example.com/x",
)

resource_lists = st.dictionaries(st.sampled_from(NAMES), st.integers(0, 10**6), max_size=4).map(resources_from)
ports = st.builds(
    ContainerPort, st.integers(1, 100), st.sampled_from((0, 80, 8080)), st.sampled_from(("", "TCP", "UDP")),
    st.sampled_from(("", "127.0.0.1")),
)
containers = st.builds(
    Container, name=st.just("c"), requests=resource_lists, ports=st.lists(ports, max_size=2).map(tuple),
    restart_policy=st.sampled_from((None, "Always", "OnFailure")),
)
any_pods = st.builds(
    Pod, uid=st.just("u"), containers=st.lists(containers, max_size=3).map(tuple),
    init_containers=st.lists(containers, max_size=3).map(tuple), overhead=resource_lists,
    pod_level_requests=resource_lists,
)


@given(pod=any_pods, pod_level_resources=st.booleans())
def test_pod_resource_matches_the_spec(pod: Pod, pod_level_resources: bool) -> None:
    mine = compute_pod_resource(pod, pod_level_resources=pod_level_resources)
    theirs = spec_resources.compute_pod_resource(pod, pod_level_resources=pod_level_resources)
    assert abstract_resource(mine.resource) == theirs.resource
    assert (mine.non0_cpu, mine.non0_mem) == (theirs.non0_cpu, theirs.non0_mem)


@given(pod=any_pods)
def test_host_ports_match_the_spec(pod: Pod) -> None:
    assert tuple(get_host_ports(pod)) == spec_resources.get_host_ports(pod)


def test_non_zero_defaults_apply_per_container_and_keep_explicit_zeros() -> None:
    none = Container("a")
    zero_cpu = Container("b", requests=resources_from({"cpu": 0}))
    pod = Pod(uid="u", containers=(none, zero_cpu))
    resource = compute_pod_resource(pod)
    assert (resource.non0_cpu, resource.non0_mem) == (DEFAULT_MILLI_CPU_REQUEST, 2 * DEFAULT_MEMORY_REQUEST)
    assert resource.resource == Resource()


def test_host_port_info_is_not_reference_counted() -> None:
    """Two pods sharing a host port: removing one frees it for both (digest §5)."""
    ports = HostPortInfo()
    ports.add("", "", 80)
    ports.add("0.0.0.0", "TCP", 80)
    ports.add("10.0.0.1", "UDP", 53)
    ports.add("", "", 0)
    assert ports == {"0.0.0.0": {("TCP", 80)}, "10.0.0.1": {("UDP", 53)}}
    ports.remove("", "TCP", 80)
    assert ports == {"10.0.0.1": {("UDP", 53)}}
    clone = ports.clone()
    ports.remove("10.0.0.1", "UDP", 53)
    assert ports == {} and clone == {"10.0.0.1": {("UDP", 53)}}


def test_resource_scalar_map_is_nil_until_needed_and_cloned_deeply() -> None:
    resource = Resource.from_list(resources_from({"cpu": 5, "pods": 3, "not-a-scalar": 7}))
    assert resource.scalar_resources is None and resource.allowed_pod_number == 3
    resource.add(resources_from({"example.com/gpu": 1}))
    clone = resource.clone()
    assert clone == resource and clone.scalar_resources is not resource.scalar_resources


host_port_triples = st.tuples(
    st.sampled_from(("", "0.0.0.0", "127.0.0.1", "10.0.0.1")), st.sampled_from(("", "TCP", "UDP")),
    st.sampled_from((-1, 0, 80, 8080)),
)


@given(st.lists(host_port_triples, max_size=5), host_port_triples)
def test_host_port_conflict_matches_the_spec(used: list[tuple[str, str, int]], wanted: tuple[str, str, int]) -> None:
    """``HostPortInfo.check_conflict`` is the NodePorts filter's ``ports_conflict`` of the spec."""
    ports = HostPortInfo()
    for triple in used:
        ports.add(*triple)
    in_use = frozenset(host_port(*triple) for triple in used if triple[2] > 0)
    expected = wanted[2] > 0 and ports_conflict(host_port(*wanted), in_use)
    assert ports.check_conflict(*wanted) == expected
