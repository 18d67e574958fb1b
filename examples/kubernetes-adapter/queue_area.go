package main

// The queue area on Kubernetes' scheduling queue: a queue.PriorityQueue (pkg/scheduler/backend/queue) made with
// NewPriorityQueue and a fake clock (WithClock(testingclock.NewFakeClock)), driven as the scheduler drives it.
// The adapter plays the scheduler's side, as the spec's QueueWorld and conformance/adapters/refimpl_queue.py do:
// it keeps the QueuedPodInfo each Pop returned and hands it back to AddUnschedulableIfNotPresent (v1.37:
// AddUnschedulablePodIfNotPresent) with the informer's pod and the failure's plugins (schedule_one.go's
// handleSchedulingFailure), and plays Run's two loops for queue_run_for by calling the flushes Run's goroutines
// call, at the instants they would call them. What differs by release is behind build tags: queue_pod_keyed.go
// (v1.34 to v1.36, a queue keyed by pod) and queue_entity_keyed.go (v1.37, keyed by queued entity).
//
// Exported API: NewPriorityQueue with WithClock, WithPodInitialBackoffDuration, WithPodMaxBackoffDuration,
// WithPodMaxInUnschedulablePodsDuration, WithQueueingHintMapPerProfile (constant hints, as Kubernetes' own queue
// tests' queueHintReturnQueue / queueHintReturnSkip), WithPreEnqueuePluginMap (the real SchedulingGates plugin),
// WithPodLister and WithMetricsRecorder; Add, Pop, Done, AddUnschedulable(Pod)IfNotPresent,
// MoveAllToActiveOrBackoffQueue, Activate, Update, Delete, Close, AddNominatedPod, DeleteNominatedPodIfExists,
// SchedulingCycle and InFlightPods. Unexported, through //go:linkname (internals.go says how; linkname_test.go
// checks the signatures): (*PriorityQueue).flushBackoffQCompleted and flushUnschedulablePodsLeftover (v1.37:
// flushUnschedulableEntitiesLeftover), the bodies of Run's loops, and (*backoffQueue).getBackoffTime (a
// backing-off pod's expiry, as the queue computes it). Read-only reflection: the sub-queues' heaps
// (activeQueue.queue, backoffQueue.podBackoffQ and podErrorBackoffQ, v1.37: entityBackoffQ and
// entityErrorBackoffQ, read with heap.Heap's exported List), unschedulablePods.podInfoMap (v1.37:
// unschedulableEntities.entityInfoMap), activeQueue.inFlightEvents and closed, PriorityQueue.moveRequestCycle
// (up to v1.36) and nominator.nominatedPods.
//
// Pop blocks in Go while nothing is poppable (activeQueue.unlockedPop waits on a condition variable), so it is
// only called when Kubernetes' own state says it returns: activeQ is not empty, or PopFromBackoffQ is on and
// podBackoffQ is not empty (lenBackoff), or the queue is closed. It can still block: a pod whose UID is in flight
// is discarded and Pop waits again; the step then fails after a grace period and the instance is gone.

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/schedulinggates"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	testingclock "k8s.io/utils/clock/testing"
)

//go:linkname queueFlushBackoffQCompleted k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushBackoffQCompleted
func queueFlushBackoffQCompleted(p unsafe.Pointer, logger klog.Logger)

// queueAreas: every build serves the queue area.
var queueAreas = []string{"queue"}

// profileQueueingHints and profilePopFromBackoffQ are the spec profile's queue gates (spec/versions.py): on in
// every profile.
const (
	profileQueueingHints   = true
	profilePopFromBackoffQ = true
)

const (
	// backoffQOrderingWindow is backoff_queue.go's backoffQOrderingWindowDuration: Run flushes podBackoffQ at
	// every whole second (waitUntilAlignedWithOrderingWindow).
	backoffQOrderingWindow = time.Second
	// unschedulableFlushPeriod is Run's wait.Until period for flushUnschedulablePodsLeftover.
	unschedulableFlushPeriod = 30 * time.Second
	// popGrace is how long a Pop the queue's state says returns may take before the step reports it blocked.
	popGrace = 2 * time.Second
	noTime   = int64(-1)
	nothing  = "none"
)

// queueEpoch is the fake clock's time 0 (whole seconds, so that the backoff window's Truncate aligns as the
// spec's times do).
var queueEpoch = time.Unix(1_000_000, 0)

type queueArea struct {
	logger klog.Logger
	clock  *testingclock.FakeClock
	queue  *internalqueue.PriorityQueue
	// hintsOn and popFromBackoffQ are the gates the queue was made with; flushPeriod is the leftover flush's
	// period for queue_run_for (Run's 30 s unless new_queue says otherwise).
	hintsOn, popFromBackoffQ bool
	flushPeriod              time.Duration
	// held: the pod info each running attempt's Pop returned, by UID.
	held   map[string]*framework.QueuedPodInfo
	lister *podLister
	// blocked: a Pop of this queue never returned (its goroutine waits in activeQueue.unlockedPop).
	blocked bool
	stop    chan struct{}
}

// podLister is the informer's pod lister the nominator consults (WithPodLister): it lists the latest object of
// every pod the adapter was given, unless a queue_add_nominated_pod step says the pod is gone or bound.
type podLister struct {
	pods     map[string]*v1.Pod
	override map[string]*v1.Pod // for one step: key -> the listed pod, nil for gone
}

func (l *podLister) List(labels.Selector) ([]*v1.Pod, error) {
	var out []*v1.Pod
	for _, pod := range l.pods {
		out = append(out, pod)
	}
	return out, nil
}

func (l *podLister) Pods(namespace string) listersv1.PodNamespaceLister {
	return podNamespaceLister{l, namespace}
}

type podNamespaceLister struct {
	l         *podLister
	namespace string
}

func (n podNamespaceLister) List(labels.Selector) ([]*v1.Pod, error) {
	var out []*v1.Pod
	for _, pod := range n.l.pods {
		if pod.Namespace == n.namespace {
			out = append(out, pod)
		}
	}
	return out, nil
}

func (n podNamespaceLister) Get(name string) (*v1.Pod, error) {
	key := n.namespace + "/" + name
	pod, ok := n.l.override[key]
	if !ok {
		pod, ok = n.l.pods[key]
	}
	if !ok || pod == nil {
		return nil, apierrors.NewNotFound(v1.Resource("pods"), name)
	}
	return pod, nil
}

// queueConfig is new_queue's arguments with the profile's defaults filled in.
type queueConfig struct {
	QueueingHints                     *bool         `json:"queueing_hints"`
	PopFromBackoffQ                   *bool         `json:"pop_from_backoff_q"`
	PodInitialBackoff                 *int64        `json:"pod_initial_backoff"`
	PodMaxBackoff                     *int64        `json:"pod_max_backoff"`
	PodMaxInUnschedulablePodsDuration *int64        `json:"pod_max_in_unschedulable_pods_duration"`
	Hints                             []hintRegJSON `json:"hints"`
	SchedulerNames                    *[]string     `json:"scheduler_names"`
	UnschedulableFlushPeriod          *int64        `json:"unschedulable_flush_period"`
	PreEnqueuePlugins                 []string      `json:"pre_enqueue_plugins"`
}

type eventJSON struct {
	Resource    string `json:"resource"`
	ActionType  int64  `json:"action_type"`
	CustomLabel string `json:"custom_label,omitempty"`
}

type hintFunctionJSON struct {
	Plugin string `json:"plugin"`
	Hint   string `json:"hint"`
}

type hintRegJSON struct {
	Event     eventJSON          `json:"event"`
	Functions []hintFunctionJSON `json:"functions"`
}

// Spec action bits (spec/queue/events.py ActionType, v1.37's layout, which the vectors use) by name, in order;
// each release file's goActionTypes maps the names to its fwk.ActionType values (the layout differs by release).
var specActionNames = []string{
	"Add", "Delete", "UpdateNodeAllocatable", "UpdateNodeLabel", "UpdateNodeTaint", "UpdateNodeCondition",
	"UpdateNodeAnnotation", "UpdateNodeDeclaredFeature", "UpdateNodePreemptionPolicy", "UpdatePodLabel",
	"UpdatePodScaleDown", "UpdatePodScaleUp", "UpdatePodToleration", "UpdatePodSchedulingGatesEliminated",
	"UpdatePodGeneratedResourceClaim",
}

const (
	specAll    = int64(1)<<15 - 1
	specUpdate = specAll &^ 3
)

func (e eventJSON) toEvent() (fwk.ClusterEvent, error) {
	var action fwk.ActionType
	switch e.ActionType {
	case specAll:
		action = fwk.All
	case specUpdate:
		action = fwk.Update
	default:
		if e.ActionType < 0 || e.ActionType > specAll {
			return fwk.ClusterEvent{}, fmt.Errorf("action_type %d is not an ActionType", e.ActionType)
		}
		for i, name := range specActionNames {
			if e.ActionType&(1<<i) == 0 {
				continue
			}
			bit, ok := goActionTypes[name]
			if !ok {
				return fwk.ClusterEvent{}, fmt.Errorf("Kubernetes %s has no ActionType %s", kubernetesVersion, name)
			}
			action |= bit
		}
	}
	return fwk.ClusterEvent{Resource: fwk.EventResource(e.Resource), ActionType: action, CustomLabel: e.CustomLabel}, nil
}

func specEvent(e fwk.ClusterEvent) map[string]any {
	var action int64
	switch e.ActionType {
	case fwk.All:
		action = specAll
	case fwk.Update:
		action = specUpdate
	default:
		for i, name := range specActionNames {
			if bit, ok := goActionTypes[name]; ok && e.ActionType&bit != 0 {
				action |= 1 << i
			}
		}
	}
	out := map[string]any{"resource": string(e.Resource), "action_type": action}
	if e.CustomLabel != "" {
		out["custom_label"] = e.CustomLabel
	}
	return out
}

// defaultHintMap is the spec's default_hint_map (spec/queue/events.py DEFAULT_PLUGIN_EVENTS): the default filter
// plugins' EventsToRegister, each with a constant Queue hint; with QueueingHints off Node/Add registrations also
// cover taint and label updates and the toleration registrations are absent. SchedulingGates' registrations are the
// plugin's own (addRegistrations).
func defaultHintMap(hintsOn bool) internalqueue.QueueingHintMap {
	type reg struct {
		plugin string
		event  fwk.ClusterEvent
	}
	pod, node := fwk.Pod, fwk.Node
	regs := []reg{
		{"NodeResourcesFit", fwk.ClusterEvent{Resource: pod, ActionType: fwk.Delete | fwk.UpdatePodScaleDown}},
		{"NodeResourcesFit", fwk.ClusterEvent{Resource: node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable}},
		{"NodePorts", fwk.ClusterEvent{Resource: pod, ActionType: fwk.Delete}},
		{"NodePorts", fwk.ClusterEvent{Resource: node, ActionType: fwk.Add}},
		{"NodeName", fwk.ClusterEvent{Resource: node, ActionType: fwk.Add}},
		{"NodeUnschedulable", fwk.ClusterEvent{Resource: node, ActionType: fwk.Add | fwk.UpdateNodeTaint}},
		{"NodeUnschedulable", fwk.ClusterEvent{Resource: pod, ActionType: fwk.UpdatePodToleration}},
		{"TaintToleration", fwk.ClusterEvent{Resource: node, ActionType: fwk.Add | fwk.UpdateNodeTaint}},
		{"TaintToleration", fwk.ClusterEvent{Resource: pod, ActionType: fwk.UpdatePodToleration}},
		{"NodeAffinity", fwk.ClusterEvent{Resource: node, ActionType: fwk.Add | fwk.UpdateNodeLabel}},
	}
	m := internalqueue.QueueingHintMap{}
	for _, r := range regs {
		event := r.event
		if !hintsOn {
			if event.Resource == node && event.ActionType&fwk.Add != 0 {
				event.ActionType |= fwk.UpdateNodeTaint | fwk.UpdateNodeLabel
			} else if event.ActionType == fwk.UpdatePodToleration {
				continue
			}
		}
		m[event] = append(m[event], &internalqueue.QueueingHintFunction{PluginName: r.plugin, QueueingHintFn: constantHint(fwk.Queue)})
	}
	return m
}

// eventsRegistrar is fwk.EnqueueExtensions' EventsToRegister (the interface moved packages between releases; the
// method did not).
type eventsRegistrar interface {
	EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error)
}

// addRegistrations adds plugin's own EventsToRegister to m as scheduler.go's buildQueueingHintMap does for each
// plugin: its hint function, or the framework's always-Queue one where it has none or QueueingHints is off (no
// registration of SchedulingGates' is a Node/Add one, so buildQueueingHintMap's extra Node/UpdateNodeTaint
// registration does not arise).
func addRegistrations(m internalqueue.QueueingHintMap, name string, plugin eventsRegistrar, hintsOn bool) error {
	events, err := plugin.EventsToRegister(context.Background())
	if err != nil {
		return err
	}
	for _, event := range events {
		fn := event.QueueingHintFn
		if fn == nil || !hintsOn {
			fn = constantHint(fwk.Queue)
		}
		m[event.Event] = append(m[event.Event], &internalqueue.QueueingHintFunction{PluginName: name, QueueingHintFn: fn})
	}
	return nil
}

// constantHint is a QueueingHintFn that always answers hint (scheduling_queue_test.go's queueHintReturnQueue and
// queueHintReturnSkip).
func constantHint(hint fwk.QueueingHint) fwk.QueueingHintFn {
	return func(klog.Logger, *v1.Pod, interface{}, interface{}) (fwk.QueueingHint, error) { return hint, nil }
}

func newQueueArea(logger klog.Logger) (*queueArea, error) {
	a := &queueArea{logger: logger, clock: testingclock.NewFakeClock(queueEpoch),
		lister: &podLister{pods: map[string]*v1.Pod{}}}
	return a, a.newQueue(queueConfig{})
}

func ns(d *int64, def time.Duration) time.Duration {
	if d == nil {
		return def
	}
	return time.Duration(*d)
}

// pristineGate is the process's feature gate as the binary's defaults have it, copied before main sets
// SchedulerAsyncAPICalls (a gate that did not exist at emulation version 1.33, so a gate with it set cannot
// emulate 1.33).
var pristineGate featuregate.MutableVersionedFeatureGate

// setQueueGates makes utilfeature.DefaultFeatureGate, which NewPriorityQueue reads (SchedulerQueueingHints and
// SchedulerPopFromBackoffQ, once, at construction), a copy of the binary's default gate with those two set:
// setHintsGate turns SchedulerQueueingHints off where the release has the gate (queue_pod_keyed.go: under
// emulation version 1.33, as Kubernetes' own queue tests do) and refuses it where it does not
// (queue_entity_keyed.go: v1.37). It returns a function putting the process's gate back.
func setQueueGates(hintsOn, popFromBackoffQ bool) (func(), error) {
	gate := pristineGate.DeepCopy()
	if err := setHintsGate(gate, hintsOn); err != nil {
		return nil, err
	}
	if err := gate.Set(fmt.Sprintf("%s=%t", features.SchedulerPopFromBackoffQ, popFromBackoffQ)); err != nil {
		return nil, err
	}
	saved := utilfeature.DefaultFeatureGate
	utilfeature.DefaultFeatureGate = gate
	return func() { utilfeature.DefaultFeatureGate = saved }, nil
}

func (a *queueArea) newQueue(c queueConfig) error {
	hintsOn, popFromBackoffQ := profileQueueingHints, profilePopFromBackoffQ
	if c.QueueingHints != nil {
		hintsOn = *c.QueueingHints
	}
	if c.PopFromBackoffQ != nil {
		popFromBackoffQ = *c.PopFromBackoffQ
	}
	names := []string{v1.DefaultSchedulerName}
	if c.SchedulerNames != nil {
		names = *c.SchedulerNames
	}
	gates := false
	for _, name := range c.PreEnqueuePlugins {
		if name != schedulinggates.Name {
			return requestError{fmt.Errorf("unknown PreEnqueue plugin %q", name)}
		}
		gates = true
	}
	var gatesPlugin any // framework.Plugin in v1.34, fwk.Plugin after
	if gates {
		plugin, err := schedulinggates.New(context.Background(), nil, nil, schedulingGatesFeatures(hintsOn))
		if err != nil {
			return err
		}
		gatesPlugin = plugin
	}
	var hintMap internalqueue.QueueingHintMap
	if c.Hints == nil {
		hintMap = defaultHintMap(hintsOn)
		if gates {
			if err := addRegistrations(hintMap, schedulinggates.Name, gatesPlugin.(eventsRegistrar), hintsOn); err != nil {
				return err
			}
		}
	} else {
		hintMap = internalqueue.QueueingHintMap{}
		for _, r := range c.Hints {
			event, err := r.Event.toEvent()
			if err != nil {
				return requestError{err}
			}
			for _, f := range r.Functions {
				hint := fwk.Queue
				switch f.Hint {
				case "", "Queue":
				case "QueueSkip":
					hint = fwk.QueueSkip
				default:
					return requestError{fmt.Errorf("unknown hint %q", f.Hint)}
				}
				hintMap[event] = append(hintMap[event], &internalqueue.QueueingHintFunction{PluginName: f.Plugin, QueueingHintFn: constantHint(hint)})
			}
		}
	}
	perProfile := internalqueue.QueueingHintMapPerProfile{}
	preEnqueue := map[string]map[string]preEnqueuePlugin{}
	for _, name := range names {
		perProfile[name] = hintMap
		if gates {
			preEnqueue[name] = map[string]preEnqueuePlugin{schedulinggates.Name: gatesPlugin.(preEnqueuePlugin)}
		}
	}
	restore, err := setQueueGates(hintsOn, popFromBackoffQ)
	if err != nil {
		return err
	}
	defer restore()
	if a.stop != nil {
		close(a.stop)
	}
	a.stop = make(chan struct{})
	// An informer factory without a client: NewPriorityQueue takes its pod and namespace listers, which the
	// adapter's steps never reach (WithPodLister replaces the pod lister).
	factory := informers.NewSharedInformerFactory(nil, 0)
	sorter := &queuesort.PrioritySort{}
	a.queue = internalqueue.NewPriorityQueue(sorter.Less, factory,
		internalqueue.WithClock(a.clock),
		internalqueue.WithPodInitialBackoffDuration(ns(c.PodInitialBackoff, internalqueue.DefaultPodInitialBackoffDuration)),
		internalqueue.WithPodMaxBackoffDuration(ns(c.PodMaxBackoff, internalqueue.DefaultPodMaxBackoffDuration)),
		internalqueue.WithPodMaxInUnschedulablePodsDuration(ns(c.PodMaxInUnschedulablePodsDuration, internalqueue.DefaultPodMaxInUnschedulablePodsDuration)),
		internalqueue.WithQueueingHintMapPerProfile(perProfile),
		internalqueue.WithPreEnqueuePluginMap(preEnqueue),
		internalqueue.WithPodLister(a.lister),
		// testing.go's NewTestQueue sets one: Pop and the hints record through it.
		withMetricsRecorder(metrics.NewMetricsAsyncRecorder(10, time.Hour, a.stop)),
	)
	a.hintsOn, a.popFromBackoffQ = hintsOn, popFromBackoffQ
	a.flushPeriod = ns(c.UnschedulableFlushPeriod, unschedulableFlushPeriod)
	if a.flushPeriod <= 0 {
		return requestError{fmt.Errorf("unschedulable_flush_period must be positive")}
	}
	a.held = map[string]*framework.QueuedPodInfo{}
	return nil
}

// shutdown stops the metrics recorder's goroutine of the current queue, and lets a Pop that blocked return
// (Close broadcasts to the waiting Pop, which then returns nil).
func (a *queueArea) shutdown() {
	if a.stop != nil {
		close(a.stop)
		a.stop = nil
	}
	if a.blocked {
		func() {
			defer func() { _ = recover() }() // already closed: Close panics on its stop channel
			a.queue.Close()
		}()
	}
}

type queuePodArgs struct {
	Pod podJSON `json:"pod"`
}

type queueUpdateArgs struct {
	Old podJSON `json:"old"`
	New podJSON `json:"new"`
}

type queueUIDArgs struct {
	UID string `json:"uid"`
}

type queuePopArgs struct {
	UID *string `json:"uid"`
}

type queueHandBackArgs struct {
	Pod           podJSON  `json:"pod"`
	Unschedulable []string `json:"unschedulable_plugins"`
	Pending       []string `json:"pending_plugins"`
	Cycle         *int64   `json:"cycle"`
}

type queueMoveAllArgs struct {
	Event    eventJSON `json:"event"`
	PreCheck *[]string `json:"pre_check"`
}

type queueElapsedArgs struct {
	Elapsed int64 `json:"elapsed"`
}

type queueNominateArgs struct {
	Pod     podJSON `json:"pod"`
	Node    *string `json:"node"`
	Gone    bool    `json:"gone"`
	BoundTo string  `json:"bound_to"`
}

// badRequest is a step the spec refuses as a ValueError (BadRequest kind).
type badRequest struct{ message string }

func (e badRequest) Error() string { return e.message }

// popBlocked: a Pop the queue's state said returns did not return (the step fails; the instance is gone).
type popBlocked struct{ message string }

func (e popBlocked) Error() string { return e.message }

func podKey(pod *v1.Pod) string { return pod.Namespace + "/" + pod.Name }

func (a *queueArea) see(p podJSON) *v1.Pod {
	pod := p.toPod()
	a.lister.pods[podKey(pod)] = pod
	return pod
}

// apply runs one operation; it returns what a Pop returned and where a hand-back sent the pod ("none"
// otherwise), and the call's error.
func (a *queueArea) apply(op string, raw json.RawMessage) (string, string, error) {
	q, logger := a.queue, a.logger
	switch op {
	case "new_queue":
		var c queueConfig
		if err := strict(raw, &c, op); err != nil {
			return nothing, nothing, requestError{err}
		}
		return nothing, nothing, a.newQueue(c)
	case "queue_add", "queue_activate", "queue_delete":
		var args queuePodArgs
		if err := strict(raw, &args, op); err != nil {
			return nothing, nothing, requestError{err}
		}
		pod := a.see(args.Pod)
		switch op {
		case "queue_add":
			queueAdd(q, logger, pod)
		case "queue_activate":
			q.Activate(logger, map[string]*v1.Pod{podKey(pod): pod})
		default:
			queueDelete(q, logger, pod)
		}
	case "queue_update":
		var args queueUpdateArgs
		if err := strict(raw, &args, op); err != nil {
			return nothing, nothing, requestError{err}
		}
		old := args.Old.toPod()
		queueUpdate(q, logger, old, a.see(args.New))
	case "queue_pop":
		var args queuePopArgs
		if err := strict(raw, &args, op); err != nil {
			return nothing, nothing, requestError{err}
		}
		return a.pop()
	case "queue_done":
		var args queueUIDArgs
		if err := strict(raw, &args, op); err != nil {
			return nothing, nothing, requestError{err}
		}
		q.Done(types.UID(args.UID))
	case "queue_add_unschedulable":
		var args queueHandBackArgs
		if err := strict(raw, &args, op); err != nil {
			return nothing, nothing, requestError{err}
		}
		return a.handBack(args)
	case "queue_move_all":
		var args queueMoveAllArgs
		if err := strict(raw, &args, op); err != nil {
			return nothing, nothing, requestError{err}
		}
		event, err := args.Event.toEvent()
		if err != nil {
			return nothing, nothing, requestError{err}
		}
		var check internalqueue.PreEnqueueCheck
		if args.PreCheck != nil {
			let := sets.New(*args.PreCheck...)
			check = func(pod *v1.Pod) bool { return let.Has(string(pod.UID)) }
		}
		q.MoveAllToActiveOrBackoffQueue(logger, event, nil, nil, check)
	case "queue_flush_backoff", "queue_flush_unschedulable", "queue_close":
		if err := strict(raw, &struct{}{}, op); err != nil {
			return nothing, nothing, requestError{err}
		}
		if exportedOnly && op != "queue_close" {
			return nothing, nothing, unreachable("the flushes of PriorityQueue.Run's loops")
		}
		switch op {
		case "queue_flush_backoff":
			queueFlushBackoffQCompleted(unsafe.Pointer(q), logger)
		case "queue_flush_unschedulable":
			queueFlushUnschedulableLeftover(unsafe.Pointer(q), logger)
		default:
			q.Close() // a second Close closes p.stop again: Go panics
		}
	case "queue_step_clock", "queue_run_for":
		var args queueElapsedArgs
		if err := strict(raw, &args, op); err != nil {
			return nothing, nothing, requestError{err}
		}
		if args.Elapsed < 0 {
			return nothing, nothing, badRequest{fmt.Sprintf("time does not go back: elapsed %d ns", args.Elapsed)}
		}
		if exportedOnly && op == "queue_run_for" {
			return nothing, nothing, unreachable("the flushes of PriorityQueue.Run's loops")
		}
		if op == "queue_step_clock" {
			a.clock.Step(time.Duration(args.Elapsed))
		} else {
			a.runFor(time.Duration(args.Elapsed))
		}
	case "queue_add_nominated_pod":
		var args queueNominateArgs
		if err := strict(raw, &args, op); err != nil {
			return nothing, nothing, requestError{err}
		}
		pod := args.Pod.toPod()
		listed := pod.DeepCopy()
		listed.Spec.NodeName = args.BoundTo
		if args.Gone {
			listed = nil
		}
		a.lister.override = map[string]*v1.Pod{podKey(pod): listed}
		defer func() { a.lister.override = nil }()
		var info *nominatingInfo
		if args.Node != nil {
			info = &nominatingInfo{NominatingMode: modeOverride, NominatedNodeName: *args.Node}
		}
		podInfo, _ := framework.NewPodInfo(pod)
		q.AddNominatedPod(logger, podInfo, info)
	case "queue_delete_nominated_pod":
		var args queueUIDArgs
		if err := strict(raw, &args, op); err != nil {
			return nothing, nothing, requestError{err}
		}
		// The nominator finds the pod by UID (nominatedPodToNode); the rest of the object is the last one seen.
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(args.UID), Name: args.UID}}
		for _, seen := range a.lister.pods {
			if string(seen.UID) == args.UID {
				pod = seen
			}
		}
		q.DeleteNominatedPodIfExists(pod)
	default:
		return nothing, nothing, requestError{fmt.Errorf("unknown queue operation %q", op)}
	}
	return nothing, nothing, nil
}

// pop is the guarded Pop (see the file comment).
func (a *queueArea) pop() (string, string, error) {
	active, backoff, _, _ := a.heaps()
	closed := field(a.activeQueue(), "closed").Bool()
	// activeQueue.unlockedPop returns without waiting iff activeQ is not empty, or backoffQPopper is set
	// (PopFromBackoffQ) and lenBackoff() (podBackoffQ's Len) is not 0, or the queue is closed.
	if len(active) == 0 && !(a.popFromBackoffQ && len(backoff) != 0) && !closed {
		return nothing, nothing, notEnabled{"Pop would block: activeQ is empty, podBackoffQ cannot be popped, and the queue is open"}
	}
	type popped struct {
		pInfo *framework.QueuedPodInfo
		err   error
	}
	done := make(chan popped, 1)
	go func() {
		pInfo, err := queuePop(a.queue, a.logger)
		done <- popped{pInfo, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nothing, nothing, r.err
		}
		if r.pInfo == nil {
			return nothing, nothing, nil
		}
		uid := string(r.pInfo.Pod.UID)
		a.held[uid] = r.pInfo
		return uid, nothing, nil
	case <-time.After(popGrace):
		a.blocked = true
		return nothing, nothing, popBlocked{"Pop blocked although the queue had a pod to pop (activeQueue.unlockedPop discarded a pod whose UID is in flight and waits)"}
	}
}

// handBack is handleSchedulingFailure's hand-back: the popped pod info (a fresh one when no attempt of the pod is
// running) with the informer's pod and the failure's plugins, to AddUnschedulableIfNotPresent.
func (a *queueArea) handBack(args queueHandBackArgs) (string, string, error) {
	pod := a.see(args.Pod)
	uid := string(pod.UID)
	pInfo := a.held[uid]
	delete(a.held, uid)
	podInfo, _ := framework.NewPodInfo(pod)
	if pInfo == nil {
		// PriorityQueue.newQueuedPodInfo (unexported): the pod info at the clock's now.
		pInfo = newQueuedPodInfo(podInfo, a.clock.Now())
	}
	pInfo.PodInfo = podInfo
	pInfo.UnschedulablePlugins = sets.New(args.Unschedulable...)
	pInfo.PendingPlugins = sets.New(args.Pending...)
	cycle := a.queue.SchedulingCycle()
	if args.Cycle != nil {
		cycle = *args.Cycle
	}
	if err := queueAddUnschedulable(a.queue, a.logger, pInfo, cycle); err != nil {
		return nothing, nothing, err
	}
	return nothing, a.where(pod), nil
}

// where names the sub-queue that holds pod now, as the spec's QueueName ("none" if none).
func (a *queueArea) where(pod *v1.Pod) string {
	key := podKey(pod)
	active, backoff, errorBackoff, unschedulable := a.heaps()
	switch {
	case hasKey(active, key):
		return "Active"
	case hasKey(backoff, key), hasKey(errorBackoff, key):
		return "Backoff"
	}
	if hasKey(unschedulable, key) {
		return "Unschedulable"
	}
	return nothing
}

// runFor is Run's two loops over elapsed from now: flushUnschedulablePodsLeftover every flush period from time
// 0, flushBackoffQCompleted at every whole second (waitUntilAlignedWithOrderingWindow), the leftover flush first
// where both fall (spec/queue/queue.py run_for).
func (a *queueArea) runFor(elapsed time.Duration) {
	now := func() time.Duration { return a.clock.Now().Sub(queueEpoch) }
	end := now() + elapsed
	for {
		t := now()
		nextBackoff := (t/backoffQOrderingWindow + 1) * backoffQOrderingWindow
		nextLeftover := (t/a.flushPeriod + 1) * a.flushPeriod
		instant := min(nextBackoff, nextLeftover)
		if instant > end {
			a.clock.Step(end - t)
			return
		}
		a.clock.Step(instant - t)
		if instant == nextLeftover {
			queueFlushUnschedulableLeftover(unsafe.Pointer(a.queue), a.logger)
		}
		if instant == nextBackoff {
			queueFlushBackoffQCompleted(unsafe.Pointer(a.queue), a.logger)
		}
	}
}

// ---------------------------------------------------------------------------------------------
// Observation
// ---------------------------------------------------------------------------------------------

func hasKey(pInfos []*framework.QueuedPodInfo, key string) bool {
	for _, pInfo := range pInfos {
		if podKey(pInfo.Pod) == key {
			return true
		}
	}
	return false
}

func (a *queueArea) priorityQueue() reflect.Value { return reflect.ValueOf(a.queue).Elem() }

// activeQueue is the *activeQueue inside PriorityQueue.activeQ (an activeQueuer interface), as a struct value.
func (a *queueArea) activeQueue() reflect.Value {
	return pointee(field(a.priorityQueue(), "activeQ").Elem())
}

func (a *queueArea) backoffQueue() reflect.Value {
	return field(a.priorityQueue(), "backoffQ").Elem()
}

// heaps are the pods of activeQ's heap, the backoff heap, the error backoff heap (heap.Heap, read with its
// exported List) and the unschedulable map, each named as the release names it (queueFields).
func (a *queueArea) heaps() (active, backoff, errorBackoff, unschedulable []*framework.QueuedPodInfo) {
	backoffQ := pointee(a.backoffQueue())
	unschedulableQ := pointee(field(a.priorityQueue(), queueFields.unschedulable))
	return heapPods(field(a.activeQueue(), "queue")),
		heapPods(field(backoffQ, queueFields.backoff)),
		heapPods(field(backoffQ, queueFields.errorBackoff)),
		mapPods(field(unschedulableQ, queueFields.unschedulableMap))
}

func (a *queueArea) since(t time.Time) int64 { return int64(t.Sub(queueEpoch)) }

type podView struct {
	uid       string
	priority  int32
	timestamp int64
	expiry    int64
	json      map[string]any
}

func (a *queueArea) view(pInfo *framework.QueuedPodInfo, backingOff bool) podView {
	first := noTime
	if pInfo.InitialAttemptTimestamp != nil {
		first = a.since(*pInfo.InitialAttemptTimestamp)
	}
	expiry := noTime
	if backingOff {
		// backoffQueue.getBackoffTime: the zero time when the pod has no backoff. With -exported-only, the
		// exported field it caches its result in (zero until the queue computed it).
		t := pInfo.BackoffExpiration
		if !exportedOnly {
			t = backoffQueueGetBackoffTime(a.backoffQueue().UnsafePointer(), pInfo)
		}
		if !t.IsZero() {
			expiry = a.since(t)
		}
	}
	priority := int32(0)
	if pInfo.Pod.Spec.Priority != nil {
		priority = *pInfo.Pod.Spec.Priority
	}
	return podView{
		uid: string(pInfo.Pod.UID), priority: priority, timestamp: a.since(pInfo.Timestamp), expiry: expiry,
		json: map[string]any{
			"timestamp": a.since(pInfo.Timestamp), "first_attempt": first, "attempts": pInfo.Attempts,
			"unschedulable_count": pInfo.UnschedulableCount, "consecutive_errors_count": pInfo.ConsecutiveErrorsCount,
			"plugins": sortedSet(pInfo.UnschedulablePlugins), "pending": sortedSet(pInfo.PendingPlugins),
		},
	}
}

func sortedSet(s sets.Set[string]) []string {
	out := sets.List(s)
	if out == nil {
		out = []string{}
	}
	return out
}

func queueOrder(a, b podView) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if a.timestamp != b.timestamp {
		return a.timestamp < b.timestamp
	}
	return a.uid < b.uid
}

// observe is the queue observation (conformance/observe.py queue_json): the sub-queues in the observation's
// canonical orders (activeQ by QueueSort, the backoff queues by expiry, ties as the observation breaks them).
func (a *queueArea) observe(popped, went string) map[string]any {
	activeHeap, backoffHeap, errorHeap, unschedulableMap := a.heaps()
	views := func(pInfos []*framework.QueuedPodInfo, backingOff bool) []podView {
		var out []podView
		for _, pInfo := range pInfos {
			out = append(out, a.view(pInfo, backingOff))
		}
		return out
	}
	active, backoff, errorViews := views(activeHeap, false), views(backoffHeap, true), views(errorHeap, true)
	var unschedulable []podView
	for _, pInfo := range unschedulableMap {
		unschedulable = append(unschedulable, a.view(pInfo, false))
	}
	sort.Slice(active, func(i, j int) bool { return queueOrder(active[i], active[j]) })
	sort.Slice(backoff, func(i, j int) bool {
		if backoff[i].expiry != backoff[j].expiry {
			return backoff[i].expiry < backoff[j].expiry
		}
		if a.popFromBackoffQ {
			return queueOrder(backoff[i], backoff[j])
		}
		return backoff[i].uid < backoff[j].uid
	})
	sort.Slice(errorViews, func(i, j int) bool {
		if errorViews[i].expiry != errorViews[j].expiry {
			return errorViews[i].expiry < errorViews[j].expiry
		}
		return errorViews[i].uid < errorViews[j].uid
	})
	pods := map[string]any{}
	activeUIDs := []string{}
	for _, v := range active {
		activeUIDs = append(activeUIDs, v.uid)
		pods[v.uid] = v.json
	}
	timed := func(vs []podView) [][]any {
		out := [][]any{}
		for _, v := range vs {
			out = append(out, []any{v.uid, v.expiry})
			pods[v.uid] = v.json
		}
		return out
	}
	waiting := map[string]any{}
	for _, v := range unschedulable {
		waiting[v.uid] = v.timestamp
		pods[v.uid] = v.json
	}
	inFlight := []string{}
	for _, pod := range a.queue.InFlightPods() {
		inFlight = append(inFlight, string(pod.UID))
	}
	sort.Strings(inFlight)
	events := []any{}
	inFlightEvents := field(a.activeQueue(), "inFlightEvents").Interface().(*list.List)
	for e := inFlightEvents.Front(); e != nil; e = e.Next() {
		if pod, ok := e.Value.(*v1.Pod); ok {
			events = append(events, map[string]any{"pod": string(pod.UID)})
			continue
		}
		ce := pointee(reflect.ValueOf(e.Value)) // *clusterEvent
		entry := map[string]any{"event": specEvent(field(ce, "event").Interface().(fwk.ClusterEvent))}
		if pod, ok := field(ce, "newObj").Interface().(*v1.Pod); ok && pod != nil {
			entry["target"] = string(pod.UID)
		}
		events = append(events, entry)
	}
	out := map[string]any{
		"now":                a.since(a.clock.Now()),
		"active":             activeUIDs,
		"backoff":            timed(backoff),
		"error_backoff":      timed(errorViews),
		"unschedulable":      waiting,
		"pods":               pods,
		"in_flight":          inFlight,
		"in_flight_events":   events,
		"cycle":              a.queue.SchedulingCycle(),
		"move_request_cycle": moveRequestCycle(a.priorityQueue()),
		"closed":             field(a.activeQueue(), "closed").Bool(),
		"popped":             popped,
		"went":               went,
	}
	nominator := pointee(field(a.priorityQueue(), "nominator"))
	nominated := map[string]any{}
	iter := field(nominator, "nominatedPods").MapRange()
	for iter.Next() {
		var uids []string
		for i := 0; i < iter.Value().Len(); i++ {
			ref := iter.Value().Index(i)
			uids = append(uids, field(reflectAddressable(ref), "uid").String())
		}
		if len(uids) > 0 {
			nominated[iter.Key().String()] = uids
		}
	}
	if len(nominated) > 0 {
		out["nominated"] = nominated
	}
	return out
}

// reflectAddressable copies v into a new addressable value (field needs an addressable struct).
func reflectAddressable(v reflect.Value) reflect.Value {
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}

// queueErrorKind names AddUnschedulableIfNotPresent's errors as the spec's kinds, by Kubernetes' messages.
func queueErrorKind(err error) string {
	for text, kind := range map[string]string{
		"unschedulable queue": "PodAlreadyUnschedulable",
		"active queue":        "PodAlreadyActive",
		"backoff queue":       "PodAlreadyBackingOff",
	} {
		if strings.Contains(err.Error(), text) {
			return kind
		}
	}
	return "QueueError"
}

// queueStep applies one queue-area operation (queue_area.go).
func (s *server) queueStep(op string, args json.RawMessage) response {
	popped, went, err := s.queue.apply(op, args)
	var guard notEnabled
	var bad badRequest
	var blocked popBlocked
	switch {
	case isRequestError(err):
		return response{"type": "failure", "message": err.Error()}
	case errors.As(err, &blocked):
		s.dead = fmt.Sprintf("step %s did not return: %s", op, err)
		return response{"type": "failure", "message": err.Error()}
	case errors.As(err, &guard):
		return response{"status": "error", "kind": "NotEnabled", "message": err.Error(), "observation": s.queue.observe(nothing, nothing)}
	case errors.As(err, &bad):
		return response{"status": "error", "kind": "BadRequest", "message": err.Error(), "observation": s.queue.observe(nothing, nothing)}
	case err != nil:
		return response{"status": "error", "kind": queueErrorKind(err), "message": err.Error(), "observation": s.queue.observe(nothing, nothing)}
	}
	return response{"status": "ok", "observation": s.queue.observe(popped, went)}
}
