"""Conformance vectors: the trace format, its JSON Schema, and reading and writing vector files.

A vector is data (``docs/conformance.md`` documents every field): a stable dotted id, a description, tags (area,
origin, the Kubernetes behaviours exercised, the version profiles the expectations hold for), the profile and TTL
to start the implementation with, the initial observation, and steps. Each step names an operation
(:data:`conformance.codec.OPERATIONS`), its arguments (spec objects as JSON, :mod:`conformance.codec`) and the
expected outcome: ``ok``, ``error`` with a normalised error kind, or ``fatal`` (the Kubernetes process exits; the
vector ends there). Error messages are information, never compared. Observations are JSON merge patches of the
previous step's full expected observation (:mod:`conformance.observe`).

The format has a semantic version: the major part changes with the format, the minor part with the coverage.

The vectors, their manifest and the schema are package data (in the wheel and the sdist): they are read through
:mod:`importlib.resources` (:data:`VECTORS`, :func:`schema`), so an installed ``ksspec`` finds them wherever the
package is installed. A directory given on the command line is read the same way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Final

import jsonschema

from conformance import bounded_json, indented_json
from conformance.behaviours.coverage import totals

JSON = Any

FORMAT_VERSION: Final = "5.0.0"
"""Major: the format; minor: coverage; patch: fixes to expectations that do not change coverage.

5.0.0 (from 4.8.0) is a major bump: an event's ``action_type`` (the queue area's hint maps, events and observed
in-flight events) has Kubernetes v1.37's ``ActionType`` bits, where 4.x had v1.35's. v1.37 declares
``UpdateNodePreemptionPolicy`` after ``UpdateNodeDeclaredFeature`` and ``UpdatePodScaleUp`` after
``UpdatePodScaleDown``, so ``UpdatePodLabel`` is 512 (was 256), ``UpdatePodScaleDown`` 1024, ``UpdatePodToleration``
4096, ``UpdatePodSchedulingGatesEliminated`` 8192, ``UpdatePodGeneratedResourceClaim`` 16384, ``Update`` 32764 (was
8188) and ``All`` 32767 (was 8191); the bits below ``UpdatePodLabel`` keep their values. The spec's layout is the union
of the releases' in declaration order, so its integer comparison (``MatchClusterEvents``) orders the bits each release
has as that release does. An adapter that decodes 4.x bits misreads every queue vector with such an event. New
vectors: ``queue.versions.scale_up.*``, v1.37's ``UpdatePodScaleUp`` event for an update that raises or adds a
request (:attr:`spec.versions.VersionProfile.pod_scale_up_event`), and ``queue.versions.shared_info.*``, one pod info
in backoffQ and unschedulablePods at once with SchedulerPopFromBackoffQ off, which an ``Update`` changes in both.

4.8.0 (from 4.7.0) is a minor bump (issue 25): ``terminate_pod`` is now enabled while the pod's binding is in flight
or its bind request is orphaned. An assumed pod whose deletion starts is forgotten from v1.35 on
(``handleAssumedPodDeletion``) and kept by v1.34, and the API server refuses to bind a terminating pod ("pod <name>
is being deleted, cannot be assigned to a host"): ``bind_pod`` then runs the binding cycle's error path (the pod is
forgotten and requeued with a ``SchedulerError`` failure record) and an orphaned request that lands is refused. No
field or operation is new; an adapter that refused ``terminate_pod`` during a binding, or let such a bind succeed,
fails the new ``cycle.terminate.*`` vectors only.

4.7.0 (from 4.6.0) is a minor bump in two ways (issue 25). Each record of the cycle observation's ``failures`` gains
the condition's ``type`` (``PodScheduled``) and ``status`` (``False``), so the condition the failure handler patched
is observed whole; every earlier cycle vector with a failure record now expects both keys, and a cycle-area adapter
that reports only the reason, the message and the note fails those steps. And the cycle area gains two operations:
``terminate_pod`` (a graceful deletion: :func:`spec.cycle.cycle.terminate_pod`) and ``skip_pod`` (``ScheduleOne``
skipping a popped pod being deleted: :func:`spec.cycle.cycle.skip_pod`); ``create_pod`` no longer takes a terminating
pod (the API server clears ``DeletionTimestamp`` on create), so the vectors that created one
(``cycle.preemption.eligibility.*`` and ``cycle.create.unique_name.terminating``) make their pods terminating with
``terminate_pod`` once placed. New vectors: ``cycle.skip.*``.

4.6.0 (from 4.5.0) is a minor bump: the cycle-area observation gains ``failures`` (issues 25 and 26), what the
scheduler's failure handler (``handleSchedulingFailure``) last wrote for each pod the API server still has: the reason
(``Unschedulable`` for a rejection, ``SchedulerError`` for an error) and full message of the ``PodScheduled`` condition
its status patch set, and the note of its ``FailedScheduling`` event (``truncateMessage``: at most 1,024 bytes, ending
in " ..."). It is present only while some pod has one (absent means ``{}``). The message is the decision's for a cycle
that found no node; a Reserve or Permit failure is a rejection of the chosen node (``"0/1 nodes are available: 1
rejected on reserve."``), a PreBind or Bind failure an error (``running Bind plugin "DefaultBinder": binder``), as
TestSchedulerScheduleOne's plugins fail (:data:`spec.cycle.cycle.INJECTED_FAILURES`). So every earlier cycle vector with
a failed cycle or binding now expects it, and a cycle-area adapter that does not report it fails those steps; no other
field or operation changes. New vectors: ``cycle.failure.condition.*`` (schedule_one_test.go's cases of the condition
and the event, a message longer than 1,024 bytes, an error, a recreated pod).

4.5.0 (from 4.4.0) is a minor bump: the cycle area gains the operation ``cluster_add_pod_disruption_budget`` (a
PodDisruptionBudget created, or the object of its namespace and name replaced: :func:`spec.cycle.cycle.add_pdb`),
which DefaultPreemption's PDB lister reads in every PostFilter: its selector (``matchLabels``; absent is a nil
selector, ``{}`` an empty one, both covering no pod), ``disruptions_allowed`` (``Status.DisruptionsAllowed``) and
``disrupted_pods`` (the names in ``Status.DisruptedPods``). No observation field changes; every earlier vector is
unchanged but for its ``format_version``. New vectors use it: ``cycle.preemption.pdb.*`` (TestDryRunPreemption's and
TestPostFilter's PDB cases of default_preemption_test.go, TestDryRunPreemption's of preemption_test.go, a budget's
scope, the reprieve order and an update between two preemptions). A cycle-area adapter that does not implement the
operation fails those only.

4.4.0 (from 4.3.0) is a minor bump in two ways. First, a vector gains the optional input ``preemption`` (cycle area;
absent means false, sent in ``reset`` only when true): the scheduler's profile runs DefaultPreemption as its
PostFilter. Without it the profile has DefaultPreemption disabled (``KubeSchedulerConfiguration`` allows it), which
is what every earlier cycle vector meant, so every earlier vector is unchanged but for its ``format_version``. With
it, a cycle that finds no feasible node runs PostFilter (:func:`spec.cycle.cycle.fail_scheduling`): the decision
gains ``preemption`` (PostFilter's status code, the node the pod is nominated to, the victims deleted at the API
server) and its ``message`` the PostFilter message (``FitError.Error()`` with ``Diagnosis.PostFilterMsg``); the
observation gains ``nominated`` (the queue's nominator, present only while some pod is nominated); every Filter
counts the nominated pods of equal or higher priority. New vectors use it: ``cycle.preemption.*`` (TestPostFilter,
TestDryRunPreemption and TestSelectBestCandidate cases, and the nominator's effects), each split by profile: v1.37
gives a successful preemption a message (:attr:`spec.versions.VersionProfile.preemption_reports_placement`) and
drops a nomination to ``""`` (:attr:`spec.versions.VersionProfile.empty_nomination_clears`), so each has a
``.v1_37`` vector. An adapter that ignores ``preemption`` fails those only.
Second, the scheduling queue's sub-queues hold a pod by namespace/name, as Kubernetes' do (``podInfoKeyFunc``;
the pods in flight and the nominator still go by UID), and new curated queue vectors (``queue.keyed.*``) add,
delete, update, activate and hand back pod objects of another UID with a queued pod's namespace and name
(``queue.keyed.update_across_uids`` splits by profile: v1.37's ``PodInfo.Update`` refuses an object of another UID,
:attr:`spec.versions.VersionProfile.update_requires_same_uid`). No field changes; every earlier vector is unchanged
but for its ``format_version``.

4.3.0 (from 4.2.0) is a minor bump for the v1.37 profile's scheduling queue, as Kubernetes v1.37.2's queue showed it
(examples/kubernetes-adapter): an event resource gains the value ``TargetPod`` (the resource of a queued pod's own
update events from v1.37: :attr:`spec.versions.VersionProfile.target_pod_update_events`), and v1.37 keeps no
``move_request_cycle`` (it stays -1) and cannot make a queue with QueueingHints off
(:attr:`spec.versions.VersionProfile.queueing_hints_gate`). So the queue vectors that turn the hints off no longer
hold for v1.37 and pr141745, and those whose expectations differ there split by profile (new ``.v1_37`` vectors; the
earlier ones take the suffix ``.v1_34``). Every other vector is unchanged but for its ``format_version``.

4.2.0 (from 4.1.0) is a minor bump: a pod gains the optional field ``preferred_node_affinity``
(``Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution``: weighted node selector terms with
``match_expressions``, In, NotIn, Exists, DoesNotExist, Gt, Lt, and ``match_fields``; absent is nil, ``[]`` a non-nil
empty list), which NodeAffinity's PreScore, Score and NormalizeScore read. Every earlier vector is unchanged but for
its ``format_version``; new vectors use it: TestNodeAffinityPriority's cases and random decision traces whose pods
have such terms. An adapter that ignores the field scores NodeAffinity wrongly in those vectors only.

4.1.0 (from 4.0.0) is a minor bump: the cycle area gains the operation ``cluster_add_namespace`` (a Namespace
created, or relabelled: :func:`spec.cycle.cycle.add_namespace`), which InterPodAffinity's namespace lister reads, so a
term's ``namespaceSelector`` selects namespaces by their labels. Every earlier vector is unchanged but for its
``format_version``; new vectors use it: the InterPodAffinity scoring and filtering cases of Kubernetes' table tests
that need namespaces, and curated ones relabelling a namespace between two cycles. A cycle-area adapter that does not
implement the operation fails those vectors only (no example adapter declares the cycle area).

4.0.0 (from 3.2.0, the last released) is a major bump. Three changes, released together:

- the scheduling decision (issue 24): a cycle-area step that runs a scheduling cycle (``schedule_pod``,
  ``fail_scheduling``) observes its ``decision``: the feasible nodes, each one's weighted Score-plugin scores and
  total, the nodes ``selectHost`` may return (``allowed``), and the failure message (``FitError.Error()``, the text of
  the pod's ``PodScheduled`` condition). An implementation reports the node its own selection chose as
  ``decision.chosen``, which the runner accepts if it is one of ``allowed``. Every adapter of the cycle area must
  report the decision, so an adapter that conformed to 3.x fails every cycle vector with a scheduling step; the other
  areas' vectors are unchanged but for their ``format_version``.
- the dispatcher's metrics (issue 26): a dispatcher observation reports ``metrics.pending_calls``, the
  ``scheduler_pending_async_api_calls`` gauge per in-tree call type (an adapter that does not report it fails the
  dispatcher vectors); new curated vectors: ``dispatcher.no_op_sync_of_in_flight_kept`` (a status patch synced to a
  no-op while its object has a call in flight is kept: ``syncObject``'s noOp && !inFlight) and the v1.37 profile's
  incremental PVC reference counts (``snapshot.pvc_on_placeholder_counted_until_rebuild``,
  ``snapshot.pvc_ghost_claims_subtracted_twice``), whose v1.37 expectations changed with the profile field
  ``incremental_pvc_ref_counts`` (found by running the suite on Kubernetes v1.37.2).
- preemption's inputs (issue 25): pods gain optional fields (``labels``, ``preemption_policy``,
  ``scheduling_gates``, ``nominated_node_name``, ``start_time``, ``terminating``, ``preempted_by_scheduler``) and
  ``new_queue`` an optional ``pre_enqueue_plugins`` (``["SchedulingGates"]``: a gated pod waits in unschedulablePods,
  :mod:`spec.queue.gates`), each left out at its default; the queue area gains two operations,
  ``queue_add_nominated_pod`` and ``queue_delete_nominated_pod`` (the nominator, :mod:`spec.queue.nominator`), and its
  observation an optional ``nominated`` (node -> pods), present only while some pod is nominated. Every earlier vector
  is unchanged but for its ``format_version``; new queue vectors (``TestPriorityQueue_moveToActiveQ`` and the nominator
  tests ported, ``queue.scheduling_gates.*``) use them, and two queue behaviours (``queue.pre_enqueue.gated``,
  ``queue.pre_enqueue.ungated``) join the inventory.

3.2.0 (from 3.1.0) is a minor bump: new curated cycle vectors over the existing operations and observations, those
the fourth round of mutation testing, of the scheduler's framework and plugins, showed missing
(:func:`conformance.scenarios.mutation.fourth_round_scenarios`).

3.1.0 (from 3.0.0) is a minor bump: new curated vectors over the existing operations and observations, those the
third round of mutation testing of the cache and the dispatcher showed missing
(:func:`conformance.scenarios.mutation.third_round_scenarios`).

3.0.0 (from 2.6.0) is a major bump: a cycle-area observation's ``filters`` maps each rejected node to an object,
``{"plugin", "code"}``, the first rejecting filter and its status code (Unschedulable or
UnschedulableAndUnresolvable, as ``Diagnosis.NodeToStatus`` records it), where 2.x mapped it to the plugin's name.
Every adapter must report the code, so an adapter that conformed to 2.x fails every cycle vector with a rejection;
the other areas' vectors are unchanged but for their ``format_version``. It also adds curated cycle vectors
(:func:`conformance.scenarios.mutation.fast_path_scenarios`: the third round of mutation testing, against the
scheduler's own Filter search) and one exploration vector (NodeResourcesFit's rejections split by code).

2.7.0 (from 2.6.0) was a minor bump: the vectors the third round of mutation testing showed missing for the cache and
the dispatcher, and ``cycle.kubelet.admitted_pod_level_requests``; 3.0.0 was prepared from 2.6.0 alongside it, and
3.1.0 carries its vectors into 3.x.

2.6.0 (from 2.5.0) is a minor bump: new curated vectors over the existing operations and observations, those the
second round of mutation testing showed missing (:func:`conformance.scenarios.mutation.gap_scenarios`, and
``dispatcher.sync.nomination_applied``).

2.5.0 (from 2.4.0) is a minor bump: a new area, ``queue`` (the scheduling queue: activeQ, backoffQ,
unschedulablePods, in-flight pods and events), with its own operations and observation. No vector of an existing
area changed, and an adapter that does not declare the area skips its vectors, so every 2.4 adapter conforms to 2.5
as it did.

2.4.0 (from 2.3.0) is a minor bump: new cycle-area operations for the scheduler in its cluster
(``crash_scheduler``, ``restart_scheduler``, ``land_orphaned_bind``, ``drop_orphaned_bind``, ``admit_pod``) with
curated vectors (``cycle.restart.*``, ``cycle.responsibility.*``, ``cycle.kubelet.*``), and the optional
``scheduler`` and ``kubelet`` parts of a cycle observation, present only once a step makes them differ from a
running scheduler with no orphaned request and kubelets that handled nothing: every earlier vector and
observation is unchanged, and an adapter that conformed to 2.3.0 still passes every vector it did.

2.3.0 (from 2.2.0) is a minor bump: a new curated vector (``dispatcher.waiting_call_replaced_untold``), and
expectations fixed from v1.35 on, where a call of another type waits behind an in-flight call instead of
overwriting it (PR #135180, found by running the suite on Kubernetes' own call queue).

2.2.0 (from 2.1.0) is a minor bump: new curated vectors over the existing operations and observations, those
mutation testing showed missing (:mod:`conformance.scenarios.mutation`).

2.1.0 (from 2.0.0) is a minor bump: new vectors over the existing operations and observations, and
``tags.behaviours`` now also holds the behaviours of the inventory (:mod:`conformance.behaviours`) each vector was
observed to exercise. An adapter that conformed to 2.0.0 reads every 2.1.0 vector; the manifest gained a
``coverage`` object (vectors per behaviour).

2.0.0 (from 1.0.0) is a major bump: cache-area observations gained two keys every adapter must report
(``returned``, ``metrics``), so an adapter that conformed to 1.x fails every cache vector, and the schema gained
operations (``update_metrics`` and the cycle area's) that a 1.x runner's schema refuses. Coverage alone (new
vectors over existing operations and observations) would have been a minor bump."""
FORMAT_MAJOR: Final = FORMAT_VERSION.split(".")[0]

AREAS: Final = ("cache", "snapshot", "node_tree", "dispatcher", "cycle", "queue")
"""What a vector exercises; an implementation declares the areas it supports in its handshake."""
ORIGINS: Final = ("curated", "exploration", "random")
STATUSES: Final = ("ok", "error", "fatal")

PACKAGE_DATA: Final = files("conformance")
"""The installed ``conformance`` package's files (package data included), wherever it is installed."""
SCHEMA: Final = PACKAGE_DATA / "schema" / "vector.schema.json"
SCHEMA_DIR: Final = Path(str(PACKAGE_DATA / "schema"))
"""Where ``ksspec conformance generate`` writes the JSON Schemas (in a checkout, ``conformance/schema``)."""
VECTORS: Final = PACKAGE_DATA / "vectors"
"""The vectors and manifest the package carries: what ``ksspec conform`` runs by default."""
VECTORS_DIR: Final = Path(str(VECTORS))
""":data:`VECTORS` as a file-system directory: where ``ksspec conformance generate`` writes (in a checkout, or an
editable install, the committed ``conformance/vectors``)."""
MANIFEST_NAME: Final = "manifest.json"
GENERATED_BY: Final = "ksspec conformance generate"
"""The manifest's ``generated_by``: a manifest that says so lists vector files ``generate`` wrote."""
REPAIR: Final = "regenerate them with `ksspec conformance generate` (in a checkout) or reinstall kube-scheduler-spec"
"""What to do about missing or damaged vector files, said by every such error."""


class VectorFormatError(ValueError):
    """A vector (or vector file) is not valid; the message says which vector, where, and what is wrong."""


@dataclass(frozen=True)
class Expect:
    """The expected outcome of a step."""

    status: str
    kind: str | None = None
    message: str = ""
    """Kubernetes' message, for information only."""
    observation: JSON = None
    """A merge patch of the previous full observation; None exactly for ``fatal``."""


@dataclass(frozen=True)
class Step:
    op: str
    args: JSON
    expect: Expect


@dataclass(frozen=True)
class Tags:
    area: str
    origin: str
    behaviours: tuple[str, ...] = ()
    profiles: tuple[str, ...] = ()


@dataclass(frozen=True)
class Vector:
    id: str
    description: str
    tags: Tags
    profile: str
    ttl_ns: int
    initial_observation: JSON
    steps: tuple[Step, ...]
    format_version: str = FORMAT_VERSION
    preemption: bool = False
    """Cycle area: the scheduler's profile runs DefaultPreemption as its PostFilter (format 4.4.0); absent (false):
    a profile with DefaultPreemption disabled."""

    def to_json(self) -> JSON:
        """The vector as the JSON object the schema describes (keys in a fixed order)."""
        steps = []
        for step in self.steps:
            expect: dict[str, JSON] = {"status": step.expect.status}
            if step.expect.kind is not None:
                expect["kind"] = step.expect.kind
            if step.expect.message:
                expect["message"] = step.expect.message
            if step.expect.observation is not None:
                expect["observation"] = step.expect.observation
            steps.append({"op": step.op, "args": step.args, "expect": expect})
        return {
            "format_version": self.format_version,
            "id": self.id,
            "description": self.description,
            "tags": {"area": self.tags.area, "origin": self.tags.origin,
                     "behaviours": list(self.tags.behaviours), "profiles": list(self.tags.profiles)},
            "profile": self.profile,
            "ttl_ns": self.ttl_ns,
            **({"preemption": True} if self.preemption else {}),
            "initial_observation": self.initial_observation,
            "steps": steps,
        }

    def matches_tag(self, tag: str) -> bool:
        """Whether ``tag`` is this vector's area, origin, a behaviour, a profile, or a prefix of its id."""
        t = self.tags
        return tag in (t.area, t.origin) or tag in t.behaviours or tag in t.profiles or self.id.startswith(tag)


@cache
def schema() -> JSON:
    """The vector JSON Schema (``conformance/schema/vector.schema.json``, package data)."""
    loaded: JSON = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return loaded


def loader_schema() -> JSON:
    """What the loader checks each vector against on every run: :func:`schema` without its typing of each area's
    arguments and observations (its top-level ``allOf``), which would triple the time ``ksspec conform`` takes to
    load the vectors. The whole schema is checked where the vectors are made: the tests validate every committed
    vector against it (``tests/conformance/test_contract.py``)."""
    return {key: value for key, value in schema().items() if key != "allOf"}


@cache
def _validator(full: bool = False) -> jsonschema.protocols.Validator:
    shape = schema() if full else loader_schema()
    cls = jsonschema.validators.validator_for(shape)
    cls.check_schema(shape)
    validator: jsonschema.protocols.Validator = cls(shape)
    return validator


def schema_errors(data: JSON, full: bool = False) -> list[str]:
    """Every schema violation in ``data``, as "at <path>: <what>" lines; [] if it is a valid vector. The loader's
    check (:func:`loader_schema`) unless ``full``: then also the typing of arguments and observations."""
    errors = sorted(_validator(full).iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    return [f"at {e.json_path}: {e.message}" for e in errors]


def vector_from_json(data: JSON, where: str = "vector", *, validate: bool = True) -> Vector:
    """Validate ``data`` against the schema (unless ``validate`` is false: :func:`load_vectors` reading a sealed
    file) and the format version, and read it; fails with :class:`VectorFormatError` naming the vector and each
    violation."""
    name = data.get("id", where) if isinstance(data, dict) else where
    problems = schema_errors(data) if validate else []
    if problems:
        raise VectorFormatError(f"{where}: vector {name!r} is not valid:\n  " + "\n  ".join(problems[:10]))
    if data["format_version"].split(".")[0] != FORMAT_MAJOR:
        raise VectorFormatError(
            f"{where}: vector {name!r} has format version {data['format_version']}; this runner reads "
            f"{FORMAT_MAJOR}.x. Use a runner of the vector's major version or regenerate the vectors."
        )
    tags = data["tags"]
    steps = tuple(
        Step(s["op"], s["args"], Expect(s["expect"]["status"], s["expect"].get("kind"),
                                        s["expect"].get("message", ""), s["expect"].get("observation")))
        for s in data["steps"]
    )
    return Vector(
        id=data["id"], description=data["description"],
        tags=Tags(tags["area"], tags["origin"], tuple(tags["behaviours"]), tuple(tags["profiles"])),
        profile=data["profile"], ttl_ns=data["ttl_ns"], initial_observation=data["initial_observation"],
        steps=steps, format_version=data["format_version"], preemption=data.get("preemption", False),
    )


def canonical_bytes(data: JSON) -> bytes:
    """The bytes a vector's checksum is taken over: sorted keys, no whitespace, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def checksum(vector: Vector) -> str:
    """The sha256 of the vector's canonical JSON."""
    return hashlib.sha256(canonical_bytes(vector.to_json())).hexdigest()


def file_name(vector: Vector) -> str:
    """Vectors are grouped one file per area and origin: ``<area>.<origin>.json``."""
    return f"{vector.tags.area}.{vector.tags.origin}.json"


def file_digest(content: bytes) -> str:
    """The sha256 of a vector file's bytes, as the manifest's ``files`` records it."""
    return hashlib.sha256(content).hexdigest()


def loader_schema_digest() -> str:
    """The sha256 of :func:`loader_schema`'s canonical JSON, as the manifest's ``schema_sha256`` records it."""
    return hashlib.sha256(canonical_bytes(loader_schema())).hexdigest()


def render_files(vectors: Sequence[Vector]) -> dict[str, str]:
    """The contents of every vector file and of the manifest, by file name."""
    groups: dict[str, list[Vector]] = {}
    for vector in sorted(vectors, key=lambda v: v.id):
        groups.setdefault(file_name(vector), []).append(vector)
    files = {
        name: indented_json.dumps({"format_version": FORMAT_VERSION, "vectors": [v.to_json() for v in group]},
                                  ensure_ascii=False) + "\n"
        for name, group in sorted(groups.items())
    }
    manifest = {
        "format_version": FORMAT_VERSION,
        "generated_by": GENERATED_BY,
        "coverage": totals((v.tags.area, v.tags.behaviours) for v in vectors),
        "schema_sha256": loader_schema_digest(),
        "files": {name: file_digest(text.encode()) for name, text in files.items()},
        "vectors": [
            {"id": v.id, "file": file_name(v), "area": v.tags.area, "origin": v.tags.origin,
             "behaviours": list(v.tags.behaviours), "profiles": list(v.tags.profiles), "steps": len(v.steps),
             "sha256": checksum(v)}
            for v in sorted(vectors, key=lambda v: v.id)
        ],
    }
    files[MANIFEST_NAME] = indented_json.dumps(manifest) + "\n"
    return files


MANIFEST_SCHEMA: Final = {
    "type": "object",
    "required": ["vectors"],
    "properties": {"vectors": {"type": "array", "items": {
        "type": "object",
        "required": ["id", "sha256"],
        "properties": {"id": {"type": "string"}, "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                       "file": {"type": "string"}},
    }}},
}
"""What the loader needs of the manifest (it holds more, for readers)."""
VECTOR_FILE_SCHEMA: Final = {"type": "object", "required": ["vectors"], "properties": {"vectors": {"type": "array"}}}
"""A vector file: an object whose ``vectors`` array holds the vectors (each checked against :func:`schema`)."""


def read_json(path: Traversable, what: str) -> JSON:
    """The JSON in ``path`` (a file of the package's data or of a directory given on the command line); fails with
    :class:`VectorFormatError` in one line naming the file when it is missing, unreadable or not JSON."""
    if not path.is_file():
        raise VectorFormatError(f"{what} {path} is missing; {REPAIR}")
    try:
        return bounded_json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise VectorFormatError(f"{what} {path} is not valid JSON (line {error.lineno} column {error.colno}: "
                                f"{error.msg}); {REPAIR}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise VectorFormatError(f"{what} {path} cannot be read: {error}") from None
    except ValueError as error:  # nested too deep, or an integer too long: bounded_json says which
        raise VectorFormatError(f"{what} {path} is not a JSON file ksspec reads ({error}); {REPAIR}") from None


def structure_problem(data: JSON, shape: JSON) -> str | None:
    """The first place where ``data`` does not have the JSON Schema ``shape``, as "at <JSON path>: <what>" (the
    path holds the index of a list item); None if it has it."""
    problems = sorted(jsonschema.Draft202012Validator(shape).iter_errors(data), key=lambda e: list(e.absolute_path))
    return f"at {problems[0].json_path}: {problems[0].message}" if problems else None


def load_manifest(directory: Traversable = VECTORS) -> JSON:
    """The manifest of the vectors in ``directory`` (default: the package's); fails with
    :class:`VectorFormatError` if it is missing, not JSON, or not an object whose ``vectors`` list holds objects
    with a string ``id`` and a ``sha256`` checksum (the message names the file, the index and the JSON path)."""
    path = directory / MANIFEST_NAME
    manifest: JSON = read_json(path, "the manifest")
    problem = structure_problem(manifest, MANIFEST_SCHEMA)
    if problem is not None:
        lacks = "has no list of vectors" if not isinstance(manifest, dict) or not isinstance(
            manifest.get("vectors"), list) else "is malformed"
        raise VectorFormatError(f"the manifest {path} {lacks} ({problem}); {REPAIR}")
    return manifest


def iter_vector_files(directory: Traversable = VECTORS, sealed: dict[str, str] | None = None
                      ) -> Iterator[tuple[str, JSON, bool]]:
    """(file name, contents, whether the file is sealed) of every vector file in ``directory``, by name; fails with
    :class:`VectorFormatError` naming a file that is not a JSON object with a ``vectors`` list (and the JSON path).

    A file is *sealed* when ``sealed`` (:func:`sealed_files`) maps its name to the sha256 of its bytes: it is then
    byte for byte the file ``ksspec conformance generate`` wrote for the current loader schema, and is read with
    ``json.loads`` alone (the bounds of :mod:`conformance.bounded_json` hold for what ``generate`` writes)."""
    paths = [p for p in directory.iterdir() if p.name.endswith(".json") and not p.name.startswith(".")]
    for path in sorted(paths, key=lambda p: p.name):
        if path.name == MANIFEST_NAME:
            continue
        digest = (sealed or {}).get(path.name)
        if digest is not None and path.is_file():
            try:
                raw = path.read_bytes()
            except OSError:
                raw = b""
            if file_digest(raw) == digest:
                yield path.name, json.loads(raw), True
                continue
        content = read_json(path, "vector file")
        problem = structure_problem(content, VECTOR_FILE_SCHEMA)
        if problem is not None:
            raise VectorFormatError(f"vector file {path} is not a JSON object with a list of vectors ({problem})")
        yield path.name, content, False


def sealed_files(manifest: JSON) -> dict[str, str]:
    """The vector files the manifest seals (name to the sha256 of the file's bytes): its ``files`` if its
    ``schema_sha256`` is :func:`loader_schema_digest` (the schema this runner checks vectors against), else none.

    ``ksspec conformance generate`` records both; a manifest of an older runner, or one written for another schema,
    seals nothing, and every file is then checked in full."""
    recorded = manifest.get("files")
    if manifest.get("schema_sha256") != loader_schema_digest() or not isinstance(recorded, dict):
        return {}
    return {name: digest for name, digest in recorded.items() if isinstance(name, str) and isinstance(digest, str)}


def load_vectors(directory: Traversable = VECTORS, *, verify_checksums: bool = True,
                 trust_sealed: bool = True) -> list[Vector]:
    """Every vector in ``directory`` (default: the package's), validated; with ``verify_checksums``, each must
    match its manifest entry.

    A vector file the manifest seals (:func:`sealed_files`: the bytes ``generate`` wrote, for this schema) is not
    checked against the schema again: its text is the one ``generate`` wrote, and the tests check every committed
    vector against the whole schema and that this path returns exactly what the full check returns. Its vectors'
    checksums are still compared with the manifest. Any other file, or every file with ``trust_sealed=False``, is
    checked in full. The schema check is most of the time a full load takes.

    Fails with :class:`VectorFormatError` for a missing or unreadable file, an invalid vector, a duplicate id, a
    vector missing from the manifest (or the reverse), or a checksum mismatch.
    """
    manifest_document = load_manifest(directory)
    manifest_entries = manifest_document["vectors"]
    manifest: dict[str, JSON] = {}
    for index, entry in enumerate(manifest_entries):
        if entry["id"] in manifest:
            raise VectorFormatError(f"the manifest {directory / MANIFEST_NAME} lists {entry['id']!r} twice (at "
                                    f"$.vectors[{index}].id); {REPAIR}")
        manifest[entry["id"]] = entry
    if verify_checksums:
        for name in sorted({entry["file"] for entry in manifest_entries if "file" in entry}):
            if not (directory / name).is_file():
                listed = sum(entry.get("file") == name for entry in manifest_entries)
                raise VectorFormatError(f"vector file {directory / name} is missing (the manifest lists {listed} "
                                        f"vector(s) in it); {REPAIR}")
    sealed = sealed_files(manifest_document) if verify_checksums and trust_sealed else {}
    vectors: list[Vector] = []
    seen: set[str] = set()
    for name, content, is_sealed in iter_vector_files(directory, sealed):
        for index, data in enumerate(content["vectors"]):
            vector = vector_from_json(data, f"{name}[{index}]", validate=not is_sealed)
            if vector.id in seen:
                raise VectorFormatError(f"{name}: duplicate vector id {vector.id!r}")
            seen.add(vector.id)
            if verify_checksums:
                entry = manifest.get(vector.id)
                if entry is None:
                    raise VectorFormatError(f"{name}: vector {vector.id!r} is not in the manifest")
                if entry["sha256"] != checksum(vector):
                    raise VectorFormatError(
                        f"{name}: vector {vector.id!r} does not match its manifest checksum; "
                        "regenerate with `ksspec conformance generate`"
                    )
            vectors.append(vector)
    missing = sorted(set(manifest) - seen)
    if verify_checksums and missing:
        raise VectorFormatError(f"the manifest lists vectors no file holds: {', '.join(missing[:10])}")
    return vectors
