"""Checking what a caller hands the cache, at its public boundary, before anything changes.

The spec's object types are frozen dataclasses whose type hints nothing enforces: ``Container(requests=None)``,
``Node(images=None)`` or a quantity written ``"100m"`` can be built. Deep inside the cache such a value failed
with a raw ``AttributeError`` or ``TypeError`` after part of the operation was done (a pod charged to a NodeInfo
but missing from the pod states; a node entered in the tree but not in its NodeInfo). So every public method of
:class:`~refimpl.cache.cache.Cache` checks its arguments first, and a malformed one is an
:class:`InvalidArgument` naming the operation, the argument and the field: the cache is left as it was.

**What is checked** is what the cache reads, with the types it needs:

- a pod it looks up: a :class:`~spec.objects.Pod` with a ``str`` UID and node name (an empty UID stays the spec's
  ``InvalidPodKey``); a pod it removes by the argument's spec also needs well-formed affinity fields;
- a pod it charges to a node: its :class:`~refimpl.cache.node_info.PodInfo` is built (and its requests computed)
  before the cache changes, which reads the containers, their requests and host ports, the overhead, the pod-level
  requests and the PVC claims; a field that cannot be read so fails there, every resulting quantity and host
  port must be an ``int`` (a float adds up without an error), and each host port's IP and protocol a ``str`` (they
  key the node's used ports: a list there failed only once the pod was half charged);
- a node: its name, labels, allocatable resources and images, with their types;
- a time: an ``int`` of nanoseconds or None; a snapshot: a :class:`~refimpl.cache.snapshot.Snapshot`.

Fields the cache only prints (a pod's name) or does not read (a container's image) are not checked.

**The error**: no kind of :class:`spec.errors.ErrorKind` fits (those are the errors Kubernetes' cache returns; Go's
types forbid a malformed object), so this is Python's word for an argument of the wrong type, ``TypeError``,
subclassed so it can be caught apart.

**The cost**: building the PodInfo is work the cache did anyway (now before its lock, not under it); what is added
on the pod path is a handful of type tests (``make bench``'s pod cycle measures them). The ``_explain_*`` functions,
which build the messages, run only once a check has failed.
"""

from __future__ import annotations

from collections.abc import Mapping

from refimpl.cache.node_info import PodInfo
from refimpl.cache.snapshot import Snapshot
from spec.frozenmap import FrozenMap
from spec.objects import AffinityTerms, Container, ContainerImage, ContainerPort, Node, Pod


class InvalidArgument(TypeError):
    """A cache operation was given an object that breaks its type hints; the cache did not change."""


def _fail(where: str, wanted: str, value: object) -> InvalidArgument:
    return InvalidArgument(f"{where} must be {wanted}, got {type(value).__name__} {value!r:.80}")


def _is_map(value: object) -> bool:
    return type(value) is FrozenMap or isinstance(value, Mapping)


def _affinity_ok(value: object) -> bool:
    return value is None or (isinstance(value, AffinityTerms) and type(value.required) is int)


# --------------------------------------------------------------------------------------------
# Pods
# --------------------------------------------------------------------------------------------


def check_pod_key(pod: object, where: str) -> None:
    """Check what an operation that looks a pod up reads: a :class:`Pod` with a str UID and node name. Fails with
    :class:`InvalidArgument` naming ``where`` and the field."""
    if not isinstance(pod, Pod) or type(pod.uid) is not str or type(pod.node_name) is not str:
        _explain_pod_key(pod, where)
        raise InvalidArgument(f"{where} is malformed: {pod!r:.200}")


def check_pod_affinity(pod: Pod, where: str) -> None:
    """Check the affinity fields of a pod removed by the *argument's* spec (``forget_pod``, ``update_pod``'s old
    pod: ``NodeInfo.RemovePod`` prunes its lists by them before it looks the pod up): each None, or an
    :class:`AffinityTerms` with an int count of required terms."""
    affinity, anti_affinity = pod.pod_affinity, pod.pod_anti_affinity
    if not (affinity is None or _affinity_ok(affinity)) or not (anti_affinity is None or _affinity_ok(anti_affinity)):
        _explain_affinity(pod, where)


def pod_info(pod: Pod, where: str, pod_level_resources: bool) -> PodInfo:
    """The :class:`PodInfo` of a pod the cache is about to charge to a node, with its resources computed: built
    before the cache changes, so a pod whose fields cannot be read as the cache reads them fails here, with
    :class:`InvalidArgument` naming ``where`` and the field. Call :func:`check_pod_key` first."""
    try:
        affinity, anti_affinity = pod.pod_affinity, pod.pod_anti_affinity
        if (affinity is None or _affinity_ok(affinity)) and (anti_affinity is None or _affinity_ok(anti_affinity)):
            info = PodInfo(pod, pod_level_resources=pod_level_resources)
            resource = info.calculate_resource()
            requested = resource.resource
            scalars = requested.scalar_resources
            # One type test for six figures: a sum of ints is an int; a float or a Decimal among them is not.
            total = (requested.milli_cpu + requested.memory + requested.ephemeral_storage
                     + requested.allowed_pod_number + resource.non0_cpu + resource.non0_mem)
            if (type(total) is int and (scalars is None or all(type(q) is int for q in scalars.values()))
                    and (not info.host_ports or all(type(port) is int and type(ip) is str and type(protocol) is str
                                                    for ip, protocol, port in info.host_ports))):
                return info
        cause: Exception | None = None
    except Exception as error:  # a field the cache reads could not be read: say which
        cause = error
    _explain_pod(pod, where)
    problem = f"{type(cause).__name__}: {cause}" if cause is not None else "a quantity or host port is not an int"
    raise InvalidArgument(f"{where} is malformed ({problem})") from cause


def _explain_pod_key(pod: object, where: str) -> None:
    if not isinstance(pod, Pod):
        raise _fail(where, "a Pod", pod)
    for field in ("uid", "node_name"):
        if type(getattr(pod, field)) is not str:
            raise _fail(f"{where}.{field}", "a str", getattr(pod, field))


def _explain_affinity(pod: Pod, where: str) -> None:
    for field in ("pod_affinity", "pod_anti_affinity"):
        if not _affinity_ok(getattr(pod, field)):
            raise _fail(f"{where}.{field}", "None or an AffinityTerms with an int number of required terms",
                        getattr(pod, field))


def _explain_quantities(value: object, where: str) -> None:
    if not _is_map(value):
        raise _fail(where, "a mapping of resource name to integer quantity", value)
    assert isinstance(value, Mapping)
    for name, quantity in value.items():
        if type(name) is not str:
            raise _fail(f"{where} key", "a str resource name", name)
        if type(quantity) is not int:
            raise _fail(f"{where}[{name!r}]", "an int quantity", quantity)


def _explain_container(container: object, where: str) -> None:
    if not isinstance(container, Container):
        raise _fail(where, "a Container", container)
    _explain_quantities(container.requests, f"{where}.requests")
    ports: object = container.ports
    if not isinstance(ports, tuple):
        raise _fail(f"{where}.ports", "a tuple of ContainerPort", ports)
    for index, port in enumerate(ports):
        if not isinstance(port, ContainerPort):
            raise _fail(f"{where}.ports[{index}]", "a ContainerPort", port)
        if type(port.host_port) is not int:
            raise _fail(f"{where}.ports[{index}].host_port", "an int", port.host_port)
        for field in ("host_ip", "protocol"):  # keys of the node's used ports: a list or dict is unhashable there
            if type(getattr(port, field)) is not str:
                raise _fail(f"{where}.ports[{index}].{field}", "a str", getattr(port, field))


def _explain_pod(pod: Pod, where: str) -> None:
    """Raise :class:`InvalidArgument` for the first field of ``pod`` the cache cannot read (in the order it reads
    them); return if none is found."""
    _explain_affinity(pod, where)
    groups: tuple[tuple[str, object], ...] = (("containers", pod.containers), ("init_containers", pod.init_containers))
    for field, containers in groups:
        if not isinstance(containers, tuple):
            raise _fail(f"{where}.{field}", "a tuple of Container", containers)
        for index, container in enumerate(containers):
            _explain_container(container, f"{where}.{field}[{index}]")
    for field in ("overhead", "pod_level_requests"):
        _explain_quantities(getattr(pod, field), f"{where}.{field}")
    claims: object = pod.pvc_claims
    if not isinstance(claims, tuple):
        raise _fail(f"{where}.pvc_claims", "a tuple of str", claims)


# --------------------------------------------------------------------------------------------
# Nodes, times, snapshots
# --------------------------------------------------------------------------------------------


def _quantities_ok(value: object) -> bool:
    if not _is_map(value):
        return False
    assert isinstance(value, Mapping)
    for name in value:  # noqa: SIM110  (a loop: all() over a generator costs more)
        if type(name) is not str or type(value[name]) is not int:
            return False
    return True


def _node_ok(node: object) -> bool:
    if not isinstance(node, Node) or type(node.name) is not str or not _quantities_ok(node.allocatable):
        return False
    labels: object = node.labels
    if not _is_map(labels):
        return False
    assert isinstance(labels, Mapping)
    for key in labels:
        if type(key) is not str or type(labels[key]) is not str:
            return False
    images: object = node.images
    if not isinstance(images, tuple):
        return False
    for image in images:
        if not isinstance(image, ContainerImage) or type(image.size_bytes) is not int:
            return False
        names: object = image.names
        if not isinstance(names, tuple) or any(type(name) is not str for name in names):
            return False
    return True


def _explain_node(node: object, where: str) -> None:
    if not isinstance(node, Node):
        raise _fail(where, "a Node", node)
    if type(node.name) is not str:
        raise _fail(f"{where}.name", "a str", node.name)
    labels: object = node.labels
    if not _is_map(labels):
        raise _fail(f"{where}.labels", "a mapping of str to str", labels)
    assert isinstance(labels, Mapping)
    for key, value in labels.items():
        if type(key) is not str or type(value) is not str:
            raise _fail(f"{where}.labels[{key!r}]", "a str under a str key", value)
    _explain_quantities(node.allocatable, f"{where}.allocatable")
    images: object = node.images
    if not isinstance(images, tuple):
        raise _fail(f"{where}.images", "a tuple of ContainerImage", images)
    for index, image in enumerate(images):
        here = f"{where}.images[{index}]"
        if not isinstance(image, ContainerImage):
            raise _fail(here, "a ContainerImage", image)
        names: object = image.names
        if not isinstance(names, tuple) or any(type(name) is not str for name in names):
            raise _fail(f"{here}.names", "a tuple of str", names)
        if type(image.size_bytes) is not int:
            raise _fail(f"{here}.size_bytes", "an int", image.size_bytes)


def check_node(node: object, where: str) -> None:
    """Check everything the cache reads of a node: a :class:`Node` with a str name, labels mapping str to str,
    allocatable resources mapping str to int, and a tuple of :class:`ContainerImage` (str names, int size). Fails
    with :class:`InvalidArgument` naming ``where`` and the field."""
    if not _node_ok(node):
        _explain_node(node, where)
        raise InvalidArgument(f"{where} is malformed: {node!r:.200}")


def check_time(now: object, where: str) -> None:
    """A time in nanoseconds (an int), or None for the clock's."""
    if now is not None and type(now) is not int:
        raise _fail(where, "an int (nanoseconds) or None", now)


def check_snapshot(snapshot: object, where: str) -> None:
    """A :class:`Snapshot`."""
    if not isinstance(snapshot, Snapshot):
        raise _fail(where, "a Snapshot", snapshot)
