"""Pod request computation and non-zero defaults, against Kubernetes' own examples.

Expected values come from k8s.io/kubernetes framework/types_test.go and cache_test.go
(TestEphemeralStorageResource), component-helpers resource/helpers_test.go (TestPodRequests:
init containers and restartable sidecars, KEP-753) and the pod-level resources KEP-2837, as
summarised in the digest §5.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from spec.objects import Container, ContainerPort, Pod
from spec.quantities import is_scalar_resource_name, resource_list
from spec.resources import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    Resource,
    compute_pod_resource,
    get_host_ports,
    pod_requests,
)

MIB = 2**20


def pod(*containers: Container, init: tuple[Container, ...] = (), **fields: object) -> Pod:
    return Pod("uid", "p", containers=containers, init_containers=init, **fields)  # type: ignore[arg-type]


def c(name: str = "c", restart_policy: str | None = None, **requests: int) -> Container:
    return Container(name, resource_list(**requests), restart_policy=restart_policy)


def test_defaults_are_kubernetes_constants() -> None:
    # pkg/scheduler/util/pod_resources.go: DefaultMilliCPURequest = 100, DefaultMemoryRequest = 200 * 1024 * 1024.
    assert DEFAULT_MILLI_CPU_REQUEST == 100
    assert DEFAULT_MEMORY_REQUEST == 209_715_200


def test_container_without_requests_counts_only_as_non_zero() -> None:
    result = compute_pod_resource(pod(c()))
    assert result.resource == Resource()
    assert (result.non0_cpu, result.non0_mem) == (100, 209_715_200)


def test_ephemeral_storage_only_pod() -> None:
    # TestEphemeralStorageResource: Requested.EphemeralStorage = 500, non-zero defaults for cpu and memory.
    result = compute_pod_resource(pod(c(ephemeral_storage=500)))
    assert result.resource.ephemeral_storage == 500
    assert (result.resource.milli_cpu, result.resource.memory) == (0, 0)
    assert (result.non0_cpu, result.non0_mem) == (100, 209_715_200)


def test_defaults_apply_per_container() -> None:
    result = compute_pod_resource(pod(c("a"), c("b")))
    assert (result.non0_cpu, result.non0_mem) == (200, 400 * MIB)


def test_explicit_zero_request_is_not_defaulted() -> None:
    result = compute_pod_resource(pod(c(cpu=0, memory=0)))
    assert (result.non0_cpu, result.non0_mem) == (0, 0)


def test_regular_containers_are_summed() -> None:
    result = compute_pod_resource(pod(c("a", cpu=100, memory=MIB), c("b", cpu=250)))
    assert (result.resource.milli_cpu, result.resource.memory) == (350, MIB)
    assert (result.non0_cpu, result.non0_mem) == (350, MIB + DEFAULT_MEMORY_REQUEST)


def test_init_container_larger_than_the_sum_dominates() -> None:
    requests = pod_requests(pod(c("a", cpu=100), c("b", cpu=200), init=(c("i", cpu=500),)), pod_level_resources=True)
    assert requests["cpu"] == 500


def test_sidecar_runs_beside_later_init_containers_and_the_main_containers() -> None:
    # KEP-753: sidecar 1 then init 2; containers 3. Sum = 3 + 1 = 4; the init container uses 2 + 1 = 3.
    p = pod(c(cpu=3), init=(c("s", restart_policy="Always", cpu=1), c("i", cpu=2)))
    assert pod_requests(p, pod_level_resources=True)["cpu"] == 4
    # Init 5 before sidecar 1: the init container alone needs 5, more than containers plus sidecar (2).
    q = pod(c(cpu=1), init=(c("i", cpu=5), c("s", restart_policy="Always", cpu=1)))
    assert pod_requests(q, pod_level_resources=True)["cpu"] == 5
    # An init container after two sidecars uses its own requests plus both sidecars: 1 + 2 + 4 = 7 > 1 + 1 + 2.
    r = pod(c(cpu=1), init=(c("s1", "Always", cpu=1), c("s2", "Always", cpu=2), c("i", cpu=4)))
    assert pod_requests(r, pod_level_resources=True)["cpu"] == 7


def test_overhead_is_added_and_counts_in_non_zero() -> None:
    result = compute_pod_resource(pod(c(cpu=100), overhead=resource_list(cpu=10, memory=MIB)))
    assert result.resource.milli_cpu == 110
    assert (result.non0_cpu, result.non0_mem) == (110, DEFAULT_MEMORY_REQUEST + MIB)


def test_pod_level_requests_replace_the_container_aggregate() -> None:
    p = pod(c(cpu=100, memory=MIB), pod_level_requests=resource_list(cpu=2000))
    result = compute_pod_resource(p, pod_level_resources=True)
    assert (result.resource.milli_cpu, result.resource.memory) == (2000, MIB)
    # cpu is present in the pod's requests, memory too: no defaults at all.
    assert (result.non0_cpu, result.non0_mem) == (2000, MIB)
    # With the feature gate off, pod-level requests are ignored.
    assert compute_pod_resource(p, pod_level_resources=False).resource.milli_cpu == 100


def test_pod_level_requests_default_only_what_is_missing() -> None:
    p = pod(c(), pod_level_requests=resource_list(cpu=500))
    result = compute_pod_resource(p, pod_level_resources=True)
    assert (result.non0_cpu, result.non0_mem) == (500, DEFAULT_MEMORY_REQUEST)


def test_unsupported_pod_level_resource_does_not_count_as_set() -> None:
    p = pod(c(cpu=100), pod_level_requests=resource_list(ephemeral_storage=5))
    assert compute_pod_resource(p, pod_level_resources=True).resource.ephemeral_storage == 0


def test_scalar_resources() -> None:
    assert is_scalar_resource_name("example.com/gpu")
    assert is_scalar_resource_name("hugepages-2Mi")
    assert is_scalar_resource_name("attachable-volumes-aws-ebs")
    assert is_scalar_resource_name("kubernetes.io/batch-cpu")
    assert not is_scalar_resource_name("foo")  # native name without a domain: ignored by Resource.Add
    assert not is_scalar_resource_name("requests.example.com/gpu")
    requests: dict[str, int] = {"example.com/gpu": 2, "foo": 7}
    result = compute_pod_resource(pod(Container("c", resource_list(**requests))))
    assert dict(result.resource.scalar_resources) == {"example.com/gpu": 2}


def test_host_ports_come_from_sidecars_and_containers_only() -> None:
    port = ContainerPort(80, host_port=8080)
    p = Pod(
        "u",
        containers=(Container("c", ports=(port, ContainerPort(81))),),
        init_containers=(
            Container("i", ports=(ContainerPort(1, host_port=1),)),
            Container("s", ports=(ContainerPort(2, host_port=2),), restart_policy="Always"),
        ),
    )
    assert [p.host_port for p in get_host_ports(p)] == [2, 8080]


cpu_requests = st.integers(min_value=0, max_value=10_000)


@given(st.lists(cpu_requests, min_size=1, max_size=5), st.lists(cpu_requests, max_size=3))
def test_requests_are_max_of_sum_and_each_init_container(containers: list[int], inits: list[int]) -> None:
    regular = (c(f"c{i}", cpu=v) for i, v in enumerate(containers))
    p = pod(*regular, init=tuple(c(f"i{i}", cpu=v) for i, v in enumerate(inits)))
    assert compute_pod_resource(p).resource.milli_cpu == max([sum(containers), *inits])
