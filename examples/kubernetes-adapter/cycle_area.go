package main

// The cycle area (conformance/adapters/refimpl_cycle.py is the reference): one real scheduler per vector, built by
// scheduler.New over a fake clientset and an informer factory, with the in-tree registry and the default profile
// of this release, as pkg/scheduler's own tests build it. The harness plays the API server and the informers, as
// refimpl_cycle.py does: it creates, binds and deletes pods, adds, updates and removes nodes, and hands each event
// to the scheduler's cache (Cache.AddPod, AddNode, ...) as the event handlers would; namespaces go into the
// namespace informer's indexer, which InterPodAffinity's namespace lister reads.
//
// A scheduling cycle is Kubernetes' own: Cache.UpdateSnapshot into the scheduler's snapshot (the framework's
// SnapshotSharedLister), then (*Scheduler).findNodesThatFitPod (RunPreFilterPlugins, the search from
// nextStartNodeIndex until numFeasibleNodesToFind nodes passed RunFilterPluginsWithNominatedPods), then, as
// schedulePod goes on, a FitError, the single feasible node, or prioritizeNodes (RunPreScorePlugins,
// RunScorePlugins with the profile's weights) and the scored list's Pop (selectHost). The unexported functions
// are linked by name, per release (cycle_release_v1_3x.go); the cycle itself is in cycle_schedule.go, the binding
// cycle's outcomes, crash and restart and the kubelet in cycle_cluster.go. Every observed value is read from what
// they return: the feasible nodes, each node's Filter status (its plugin and code) from the Diagnosis, the
// weighted per-plugin scores and totals from prioritizeNodes, the failure message from FitError.Error();
// "allowed" lists the nodes whose total is the top total Kubernetes computed.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// cycleAreas: the builds of this file serve the cycle area (cycle_area_none.go's do not yet).
var cycleAreas = []string{"cycle"}

// The error kinds of conformance/operations.py.
const (
	kindNotEnabled        = "NotEnabled"
	kindUnschedulable     = "Unschedulable"
	kindNodeNotInSnapshot = "NodeNotInSnapshot"
)

// cycleNotEnabled is a step whose guard is false here (refimpl_cycle.py's NotEnabled).
type cycleNotEnabled struct{ message string }

func (e cycleNotEnabled) Error() string { return e.message }

func require(condition bool, format string, args ...any) error {
	if condition {
		return nil
	}
	return cycleNotEnabled{fmt.Sprintf(format, args...)}
}

// rejected is a schedule_pod the scheduler refuses: its kind and the node's Filter status.
type rejected struct {
	kind, message string
	filters       map[string]verdict
}

func (e rejected) Error() string { return e.message }

// verdict is a rejected node's status as observed: the plugin and the code's Go name.
type verdict struct{ plugin, code string }

func verdictOf(status *fwk.Status) verdict {
	return verdict{plugin: status.Plugin(), code: status.Code().String()}
}

type cycleArea struct {
	logger klog.Logger
	ttl    time.Duration
	// cache is the running scheduler's cache (or, while it is down, the empty one the next process starts with).
	cache *cacheArea
	sched *scheduler.Scheduler
	// stop cancels the scheduler's context (its informers' and metrics recorder's goroutines).
	stop context.CancelFunc

	pending     map[string]*v1.Pod
	binding     map[string]*v1.Pod // the assumed pod, by UID
	apiPods     map[string]*v1.Pod
	unconfirmed map[string]bool
	deleted     map[string]bool
	liveNodes   map[string]*v1.Node
	namespaces  map[string]*v1.Namespace
	// pdbs are the API server's PodDisruptionBudgets by namespace/name, in the PDB informer's indexer while the
	// scheduler runs (DefaultPreemption's PDB lister reads it).
	pdbs     map[string]*policyv1.PodDisruptionBudget
	orphaned map[string]*v1.Pod
	admitted map[string]bool
	failed   map[string]string
	// failures is the observation's "failures" (format 4.6.0; type and status 4.7.0): what the failure handler last
	// wrote for each API pod, its PodScheduled condition and its FailedScheduling event's note (cycle_failure.go).
	failures map[string]map[string]any
	// events is the running process's event recorder; replayed counts the fake clientset's actions whose status
	// patches were delivered as informer updates; writes numbers the API server's writes (resourceVersion).
	events   *eventCapture
	replayed int
	writes   int
	now      int64
	running  bool

	filters  map[string]verdict
	decision map[string]any

	// preemption: the vector's "preemption" (cycle_preemption.go): PostFilter runs after a FitError.
	preemption bool
	// client is the running process's fake clientset; fit and state are the last cycle's FitError (nil if none)
	// and CycleState, which PostFilter reads.
	client    *fake.Clientset
	fit       *framework.FitError
	state     fwk.CycleState
	nodesEver map[string]bool
}

func newCycleArea(logger klog.Logger, ttl time.Duration, preemption bool) (*cycleArea, error) {
	a := &cycleArea{
		logger: logger, ttl: ttl, cache: newCacheArea(logger, ttl), preemption: preemption, nodesEver: map[string]bool{},
		pending: map[string]*v1.Pod{}, binding: map[string]*v1.Pod{}, apiPods: map[string]*v1.Pod{},
		unconfirmed: map[string]bool{}, deleted: map[string]bool{}, liveNodes: map[string]*v1.Node{},
		namespaces: map[string]*v1.Namespace{}, pdbs: map[string]*policyv1.PodDisruptionBudget{}, orphaned: map[string]*v1.Pod{}, admitted: map[string]bool{},
		failed: map[string]string{}, failures: map[string]map[string]any{}, running: true,
	}
	return a, a.startScheduler()
}

// startScheduler builds a scheduler process as kube-scheduler does (scheduler.New with the default profile and
// the in-tree registry), over a fresh fake clientset and informer factory that are never started: the harness
// delivers every event itself. Its cache is replaced by a.cache, built as scheduler.New builds it but with the
// vector's TTL and no background loop (newCacheArea), so expiry happens at the vector's instants. The process's
// feature gates are the release's defaults while scheduler.New reads them (main.go turns SchedulerAsyncAPICalls on
// for the dispatcher area; off, as in every release by default, the scheduler has no API dispatcher and its status
// patches reach the clientset at once). The profile's event recorder is an eventCapture (cycle_failure.go).
func (a *cycleArea) startScheduler() error {
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), a.logger))
	client := fake.NewClientset()
	client.PrependReactor("create", "pods", a.bindReactor) // the API server's answer to a binding (cycle_cluster.go)
	factory := newInformerFactory(client)
	recorder := newEventCapture()
	saved := utilfeature.DefaultFeatureGate
	if pristineGate != nil { // nil in tests, whose process keeps the defaults
		utilfeature.DefaultFeatureGate = pristineGate.DeepCopy()
	}
	sched, err := scheduler.New(ctx, client, factory, nil, recorderFactory(recorder), scheduler.WithParallelism(1))
	utilfeature.DefaultFeatureGate = saved
	if err != nil {
		cancel()
		return err
	}
	if err := parkCache(sched.Cache); err != nil { // its own cache's loop would overwrite the gauge (cycle_park.go)
		cancel()
		return err
	}
	sched.Cache = a.cache.cache
	a.client, a.events, a.replayed = client, recorder, 0
	indexer := factory.Core().V1().Namespaces().Informer().GetIndexer()
	for _, ns := range a.namespaces {
		if err := indexer.Add(ns); err != nil {
			cancel()
			return err
		}
	}
	pdbIndexer := factory.Policy().V1().PodDisruptionBudgets().Informer().GetIndexer()
	for _, pdb := range a.pdbs {
		if err := pdbIndexer.Add(pdb); err != nil {
			cancel()
			return err
		}
	}
	a.sched, a.stop = sched, cancel
	return nil
}

func (a *cycleArea) shutdown() {
	if a.stop != nil {
		a.stop()
	}
}

func (a *cycleArea) framework() framework.Framework {
	return a.sched.Profiles[v1.DefaultSchedulerName]
}

// snapshot is the scheduler's nodeInfoSnapshot: the one scheduler.New gave the framework as its
// SnapshotSharedLister, which findNodesThatFitPod reads.
func (a *cycleArea) snapshot() *cache.Snapshot {
	return a.framework().SnapshotSharedLister().(*cache.Snapshot)
}

type uidArgs struct {
	UID string `json:"uid"`
}

type scheduleArgs struct {
	UID  string `json:"uid"`
	Node string `json:"node"`
}

type failSchedulingArgs struct {
	UID   string  `json:"uid"`
	Node  *string `json:"node"`
	Point *string `json:"point"`
}

type failBindingArgs struct {
	UID   string `json:"uid"`
	Point string `json:"point"`
}

type nodeNameArgs struct {
	Name string `json:"name"`
}

type namespaceArgs struct {
	Namespace namespaceJSON `json:"namespace"`
}

type pdbArgs struct {
	PDB pdbJSON `json:"pdb"`
}

type tickArgs struct {
	Elapsed int64 `json:"elapsed"`
}

// The failure points of spec/cycle/cycle.py's FailurePoint.
const (
	pointReserve = "Reserve"
	pointPermit  = "Permit"
	pointPreBind = "PreBind"
	pointBind    = "Bind"
)

func (a *cycleArea) apply(op string, raw json.RawMessage) error {
	a.filters, a.decision, a.fit = map[string]verdict{}, nil, nil
	if a.preemption && a.running {
		defer a.syncAPIServer()
	}
	switch op {
	case "create_pod":
		var args podArgs
		if err := strict(raw, &args, op); err != nil {
			return requestError{err}
		}
		return a.createPod(args.Pod.toPod())
	case "delete_pod", "bind_pod", "confirm_binding", "land_orphaned_bind", "drop_orphaned_bind", "admit_pod",
		"terminate_pod", "skip_pod":
		var args uidArgs
		if err := strict(raw, &args, op); err != nil {
			return requestError{err}
		}
		switch op {
		case "delete_pod":
			if err := require(a.apiPods[args.UID] != nil && !a.unconfirmed[args.UID], "pod %s cannot be deleted now", args.UID); err != nil {
				return err
			}
			a.forgetGonePod(args.UID)
			a.deleted[args.UID] = true
			return nil
		case "terminate_pod":
			return a.terminatePod(args.UID)
		case "skip_pod":
			return a.skipPod(args.UID)
		case "bind_pod":
			return a.bindPod(args.UID)
		case "confirm_binding":
			return a.confirmBinding(args.UID)
		case "land_orphaned_bind":
			return a.landOrphanedBind(args.UID)
		case "drop_orphaned_bind":
			if err := require(a.orphaned[args.UID] != nil, "no orphaned bind request of %s", args.UID); err != nil {
				return err
			}
			delete(a.orphaned, args.UID)
			return nil
		default:
			return a.admitPod(args.UID)
		}
	case "schedule_pod":
		var args scheduleArgs
		if err := strict(raw, &args, op); err != nil {
			return requestError{err}
		}
		if err := a.requireNotSkipped(args.UID); err != nil {
			return err
		}
		pod, err := a.feasible(args.UID, args.Node)
		if err != nil {
			return err
		}
		assumed := withNodeName(pod, args.Node)
		if err := a.sched.Cache.AssumePod(a.logger, assumed); err != nil {
			return err
		}
		a.forgetNomination(assumed) // assume: DeleteNominatedPodIfExists
		delete(a.pending, args.UID)
		a.binding[args.UID] = assumed
		return nil
	case "fail_scheduling":
		var args failSchedulingArgs
		if err := strict(raw, &args, op); err != nil {
			return requestError{err}
		}
		if err := a.requireNotSkipped(args.UID); err != nil {
			return err
		}
		return a.failScheduling(args)
	case "fail_binding":
		var args failBindingArgs
		if err := strict(raw, &args, op); err != nil {
			return requestError{err}
		}
		return a.failBinding(args.UID, args.Point)
	case "cluster_add_node", "cluster_update_node":
		var args nodeArgs
		if err := strict(raw, &args, op); err != nil {
			return requestError{err}
		}
		node := args.Node.toNode()
		old, exists := a.liveNodes[node.Name]
		if op == "cluster_add_node" {
			if err := require(!exists, "node %s exists", node.Name); err != nil {
				return err
			}
			if a.running {
				addNode(a.sched.Cache, a.logger, node)
			}
		} else {
			if err := require(exists, "node %s does not exist", node.Name); err != nil {
				return err
			}
			if a.running {
				updateNode(a.sched.Cache, a.logger, old, node)
			}
		}
		a.liveNodes[node.Name] = node
		a.nodesEver[node.Name] = true
		return nil
	case "cluster_remove_node":
		var args nodeNameArgs
		if err := strict(raw, &args, op); err != nil {
			return requestError{err}
		}
		node, exists := a.liveNodes[args.Name]
		if err := require(exists, "node %s does not exist", args.Name); err != nil {
			return err
		}
		delete(a.liveNodes, args.Name)
		if a.running {
			return a.sched.Cache.RemoveNode(a.logger, node)
		}
		return nil
	case "cluster_add_namespace":
		var args namespaceArgs
		if err := strict(raw, &args, op); err != nil {
			return requestError{err}
		}
		ns := args.Namespace.toNamespace()
		a.namespaces[ns.Name] = ns // created, or its labels replaced
		if a.running {
			informer := a.framework().SharedInformerFactory().Core().V1().Namespaces().Informer()
			return informer.GetIndexer().Update(ns)
		}
		return nil
	case "cluster_add_pod_disruption_budget":
		var args pdbArgs
		if err := strict(raw, &args, op); err != nil {
			return requestError{err}
		}
		pdb := args.PDB.toPDB()
		a.pdbs[pdb.Namespace+"/"+pdb.Name] = pdb // created, or the object replaced
		if a.running {
			informer := a.framework().SharedInformerFactory().Policy().V1().PodDisruptionBudgets().Informer()
			return informer.GetIndexer().Update(pdb)
		}
		return nil
	case "tick":
		var args tickArgs
		if err := strict(raw, &args, op); err != nil {
			return requestError{err}
		}
		if err := require(args.Elapsed >= 0, "time does not go back"); err != nil {
			return err
		}
		a.now += args.Elapsed
		if a.running && profileAssumedPodExpiry {
			if exportedOnly {
				return unreachable("cleanupAssumedPods")
			}
			return cleanupAssumedPods(a.cache.impl, a.logger, epoch.Add(time.Duration(a.now)))
		}
		return nil
	case "crash_scheduler":
		if err := strict(raw, &noArgs{}, op); err != nil {
			return requestError{err}
		}
		return a.crash()
	case "restart_scheduler":
		if err := strict(raw, &noArgs{}, op); err != nil {
			return requestError{err}
		}
		return a.restart()
	}
	return requestError{fmt.Errorf("operation %q is not one of the cycle area's", op)}
}

func withNodeName(pod *v1.Pod, node string) *v1.Pod {
	out := pod.DeepCopy()
	out.Spec.NodeName = node
	return out
}

// -- pods entering and leaving --------------------------------------------------------------------

func (a *cycleArea) createPod(pod *v1.Pod) error {
	uid := string(pod.UID)
	used := a.apiPods[uid] != nil || a.deleted[uid] || a.failed[uid] != ""
	if err := require(uid != "" && !used, "pod %q has no UID or one already used", uid); err != nil {
		return err
	}
	if err := require(pod.Spec.NodeName == "", "a created pod must be unscheduled"); err != nil {
		return err
	}
	if err := require(pod.DeletionTimestamp == nil, "a created pod is not terminating (BeforeCreate clears DeletionTimestamp)"); err != nil {
		return err
	}
	// The API server's store keys a pod by namespace/name: a live pod (a terminating one too) holds its key.
	for _, live := range a.apiPods {
		if live.Namespace == pod.Namespace && live.Name == pod.Name {
			taken := apierrors.NewAlreadyExists(v1.Resource("pods"), pod.Name)
			return rejected{kind: string(apierrors.ReasonForError(taken)), message: taken.Error()}
		}
	}
	a.apiPods[uid] = pod
	if a.running && pod.Spec.SchedulerName == v1.DefaultSchedulerName {
		a.pending[uid] = pod
		a.nominateOnAdd(pod) // PriorityQueue.Add: AddNominatedPod(pod, nil)
	}
	return nil
}

// forgetGonePod: the API server no longer lists the pod (deleted or Failed). A running scheduler's pod handler
// removes a bound pod from the cache (deletePodFromCache: RemovePod) and, from v1.35, forgets an assumed one
// (handleAssumedPodDeletion: ForgetPod); the pod leaves the queue.
func (a *cycleArea) forgetGonePod(uid string) {
	pod := a.apiPods[uid]
	delete(a.apiPods, uid)
	if a.running {
		a.forgetNomination(pod) // PriorityQueue.Delete
		assumed, _ := a.sched.Cache.IsAssumedPod(pod)
		switch {
		case pod.Spec.NodeName != "" && !assumed:
			_ = a.sched.Cache.RemovePod(a.logger, pod)
		case assumed && profileForgetAssumedPodOnDelete:
			if cached, err := a.sched.Cache.GetPod(pod); err == nil {
				_ = a.sched.Cache.ForgetPod(a.logger, cached)
			}
		}
	}
	delete(a.pending, uid)
	delete(a.admitted, uid)
	delete(a.failures, uid)
}

// -- observation --------------------------------------------------------------------------------------------

func nodeNames(pods map[string]*v1.Pod) map[string]string {
	out := map[string]string{}
	for uid, pod := range pods {
		out[uid] = pod.Spec.NodeName
	}
	return out
}

func trueKeys(set map[string]bool) []string {
	out := []string{}
	for k, v := range set {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// observe is conformance/observe.py's cluster_json.
func (a *cycleArea) observe() map[string]any {
	cached := a.cache.observe(nil)
	filters := map[string]any{}
	for name, v := range a.filters {
		filters[name] = map[string]any{"plugin": v.plugin, "code": v.code}
	}
	out := map[string]any{
		"nodes": cached["nodes"], "assumed": cached["assumed"], "recency": cached["recency"],
		"metrics": cached["metrics"], "pending": sortedKeys(a.pending), "binding": nodeNames(a.binding),
		"api_pods": nodeNames(a.apiPods), "unconfirmed": trueKeys(a.unconfirmed), "now": a.now, "filters": filters,
	}
	if a.decision != nil {
		out["decision"] = a.decision
	}
	if nominated := a.nominated(); len(nominated) > 0 {
		out["nominated"] = nominated
	}
	if !a.running || len(a.orphaned) > 0 {
		out["scheduler"] = map[string]any{"running": a.running, "orphaned": nodeNames(a.orphaned)}
	}
	if admitted := trueKeys(a.admitted); len(admitted) > 0 || len(a.failed) > 0 {
		out["kubelet"] = map[string]any{"admitted": admitted, "failed": a.failed}
	}
	if len(a.failures) > 0 {
		out["failures"] = a.failures
	}
	return out
}

// step applies one cycle-area operation: the protocol's result with the observation.
func (a *cycleArea) step(op string, raw json.RawMessage) response {
	err := a.apply(op, raw)
	var guard cycleNotEnabled
	var refusal rejected
	switch {
	case err == nil:
		return response{"status": "ok", "observation": a.observe()}
	case isRequestError(err):
		return response{"type": "failure", "message": err.Error()}
	case errors.As(err, &guard):
		return response{"status": "error", "kind": kindNotEnabled, "message": err.Error(), "observation": a.observe()}
	case errors.As(err, &refusal):
		a.filters = refusal.filters
		if a.filters == nil {
			a.filters = map[string]verdict{}
		}
		return response{"status": "error", "kind": refusal.kind, "message": err.Error(), "observation": a.observe()}
	}
	return response{"status": "error", "kind": cacheErrorKind(err), "message": err.Error(), "observation": a.observe()}
}
