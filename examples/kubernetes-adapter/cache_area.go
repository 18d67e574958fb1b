package main

// The cache, snapshot and node_tree areas: one real cache (pkg/scheduler/backend/cache) and one real Snapshot per
// vector. The node tree is the cache's own, observed through UpdateSnapshot's node list, as the spec observes it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"time"
	"unsafe"

	dto "github.com/prometheus/client_model/go"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// epoch is the instant the vectors' clock (integer nanoseconds from 0) starts at. Only differences matter.
var epoch = time.Date(2025, time.December, 17, 0, 0, 0, 0, time.UTC)

type cacheArea struct {
	logger   klog.Logger
	cache    cache.Cache
	impl     unsafe.Pointer // the *cacheImpl behind cache, for the linked unexported methods
	snapshot *cache.Snapshot
	// Every node name and PVC key a step has mentioned: the Snapshot exports no way to list its map or its used
	// PVC set, only lookups by name (Get, IsPVCUsedByPods), and it can hold nothing it was never given.
	nodeNames map[string]bool
	pvcKeys   map[string]bool
}

// newCacheArea builds the cache as cache.New does, with a context that is already cancelled: New's background
// loop (wait.Until over cleanupAssumedPods with time.Now(), every second) then returns before its first run
// (BackoffUntilWithContext checks the context first), so expiry and the size gauge happen only when a vector says
// so, at the vector's time. The stop channel is read by nothing else.
func newCacheArea(logger klog.Logger, ttl time.Duration) *cacheArea {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := newCache(ctx, ttl)   // cache.New with the arguments scheduler.New gives it in this release
	metrics.CacheSize.Reset() // the gauge is process-global: a new cache starts unpublished (every value 0)
	return &cacheArea{
		logger: logger, cache: c, impl: cacheImpl(c), snapshot: cache.NewEmptySnapshot(),
		nodeNames: map[string]bool{}, pvcKeys: map[string]bool{},
	}
}

type podArgs struct {
	Pod podJSON `json:"pod"`
}

type podPairArgs struct {
	Old podJSON `json:"old"`
	New podJSON `json:"new"`
}

type timedPodArgs struct {
	Pod podJSON `json:"pod"`
	Now int64   `json:"now"`
}

type nodeArgs struct {
	Node nodeJSON `json:"node"`
}

type nodePairArgs struct {
	Old *nodeJSON `json:"old"`
	New nodeJSON  `json:"new"`
}

type nowArgs struct {
	Now int64 `json:"now"`
}

type noArgs struct{}

func (a *cacheArea) seePod(p podJSON) *v1.Pod {
	a.nodeNames[p.NodeName] = true
	for _, key := range p.pvcKeys() {
		a.pvcKeys[key] = true
	}
	return p.toPod()
}

func (a *cacheArea) seeNode(n nodeJSON) *v1.Node {
	a.nodeNames[n.Name] = true
	return n.toNode()
}

// apply runs one operation on the real cache; it returns what the call returned besides its error (AddNode's and
// UpdateNode's NodeInfo clone, else nil) and the error. A malformed request is a requestError.
func (a *cacheArea) apply(op string, raw json.RawMessage) (*framework.NodeInfo, error) {
	switch op {
	case "assume_pod", "forget_pod", "add_pod", "remove_pod":
		var args podArgs
		if err := strict(raw, &args, op); err != nil {
			return nil, requestError{err}
		}
		pod := a.seePod(args.Pod)
		switch op {
		case "assume_pod":
			return nil, a.cache.AssumePod(a.logger, pod)
		case "forget_pod":
			return nil, a.cache.ForgetPod(a.logger, pod)
		case "add_pod":
			return nil, a.cache.AddPod(a.logger, pod)
		default:
			return nil, a.cache.RemovePod(a.logger, pod)
		}
	case "update_pod":
		var args podPairArgs
		if err := strict(raw, &args, op); err != nil {
			return nil, requestError{err}
		}
		return nil, a.cache.UpdatePod(a.logger, a.seePod(args.Old), a.seePod(args.New))
	case "finish_binding":
		// FinishBinding(logger, pod) is finishBinding(logger, pod, time.Now()).
		var args timedPodArgs
		if err := strict(raw, &args, op); err != nil {
			return nil, requestError{err}
		}
		if exportedOnly {
			return nil, exportedFinishBinding(a.cache, a.logger, a.seePod(args.Pod)) // the deadline is time.Now()+TTL
		}
		return nil, finishBinding(a.impl, a.logger, a.seePod(args.Pod), epoch.Add(time.Duration(args.Now)))
	case "add_node":
		var args nodeArgs
		if err := strict(raw, &args, op); err != nil {
			return nil, requestError{err}
		}
		return addNode(a.cache, a.logger, a.seeNode(args.Node)), nil
	case "update_node":
		var args nodePairArgs
		if err := strict(raw, &args, op); err != nil {
			return nil, requestError{err}
		}
		var old *v1.Node
		if args.Old != nil {
			old = a.seeNode(*args.Old)
		}
		return updateNode(a.cache, a.logger, old, a.seeNode(args.New)), nil
	case "remove_node":
		var args nodeArgs
		if err := strict(raw, &args, op); err != nil {
			return nil, requestError{err}
		}
		return nil, a.cache.RemoveNode(a.logger, a.seeNode(args.Node))
	case "cleanup_assumed_pods":
		var args nowArgs
		if err := strict(raw, &args, op); err != nil {
			return nil, requestError{err}
		}
		if exportedOnly {
			return nil, unreachable("cleanupAssumedPods")
		}
		return nil, cleanupAssumedPods(a.impl, a.logger, epoch.Add(time.Duration(args.Now)))
	case "update_metrics":
		if err := strict(raw, &noArgs{}, op); err != nil {
			return nil, requestError{err}
		}
		if exportedOnly {
			return nil, unreachable("updateMetrics")
		}
		cacheUpdateMetrics(a.impl)
		return nil, nil
	case "update_snapshot":
		if err := strict(raw, &noArgs{}, op); err != nil {
			return nil, requestError{err}
		}
		return nil, a.cache.UpdateSnapshot(a.logger, a.snapshot)
	}
	return nil, requestError{fmt.Errorf("operation %q is not one of the cache area's", op)}
}

// ---------------------------------------------------------------------------------------------
// Errors: Kubernetes returns formatted errors; the spec compares their normalised kinds (spec/errors.py)
// ---------------------------------------------------------------------------------------------

var cacheErrorKinds = []struct {
	pattern *regexp.Regexp
	kind    string
}{
	{regexp.MustCompile(`^cannot get cache key for pod with empty UID$`), "InvalidPodKey"},                          // GetPodKey
	{regexp.MustCompile(`is in the cache, so can't be assumed$`), "PodAlreadyInCache"},                              // AssumePod
	{regexp.MustCompile(`wasn't assumed so cannot be forgotten$`), "PodNotAssumed"},                                 // ForgetPod
	{regexp.MustCompile(`is not assumed, so it cannot be removed or forgotten$`), "PodNotAssumed"},                  // later releases
	{regexp.MustCompile(`was assumed on .* but assigned to `), "PodAssumedOnOtherNode"},                             // ForgetPod
	{regexp.MustCompile(`was already in added state$`), "PodAlreadyAdded"},                                          // AddPod
	{regexp.MustCompile(`is not added to scheduler cache, so cannot be updated$`), "PodNotAdded"},                   // UpdatePod
	{regexp.MustCompile(`^assumed pod .* should not be updated$`), "AssumedPodUpdate"},                              // UpdatePod
	{regexp.MustCompile(`is not found in scheduler cache, so cannot be removed from it$`), "PodNotFoundForRemoval"}, // RemovePod
	{regexp.MustCompile(`does not exist in scheduler cache$`), "PodNotFound"},                                       // GetPod
	{regexp.MustCompile(`^no corresponding pod .* in pods of node `), "PodNotInNodeInfo"},                           // NodeInfo.RemovePod
	{regexp.MustCompile(`^node .* in group .* was not found$`), "NodeNotInTree"},                                    // nodeTree.removeNode
	{regexp.MustCompile(`^node .* is not found$`), "NodeNotFound"},                                                  // RemoveNode
	{regexp.MustCompile(`^snapshot state is not consistent`), "SnapshotInconsistent"},                               // UpdateSnapshot
}

// unsupportedOperation is a step whose Kubernetes function this release does not have (finish_binding and
// cleanup_assumed_pods from v1.36): the spec's UnsupportedOperation error.
type unsupportedOperation struct{ message string }

func (e unsupportedOperation) Error() string { return e.message }

// cacheErrorKind names a cache error; an error no pattern matches is reported under its own text, so the
// runner shows it as a divergence instead of the adapter guessing.
func cacheErrorKind(err error) string {
	var unsupported unsupportedOperation
	if errors.As(err, &unsupported) {
		return "UnsupportedOperation"
	}
	for _, k := range cacheErrorKinds {
		if k.pattern.MatchString(err.Error()) {
			return k.kind
		}
	}
	return "Unrecognised: " + err.Error()
}

// fatalKind names the process exit (klog.FlushAndExit) each cache operation can take (spec/errors.py FatalKind).
func fatalKind(op string) string {
	switch op {
	case "update_pod":
		return "PodUpdatedOnOtherNode" // UpdatePod: the new pod names another node
	case "remove_pod":
		return "PodRemovedFromOtherNode" // RemovePod: the pod names another, non-empty node
	case "cleanup_assumed_pods":
		return "AssumedPodWithoutState" // cleanupAssumedPods: a key in assumedPods but not in podStates
	}
	return "Exit"
}

// ---------------------------------------------------------------------------------------------
// Observation (conformance/observe.py), from the real objects
// ---------------------------------------------------------------------------------------------

func resourceJSON(r fwk.Resource, withPods bool) map[string]any {
	scalars := map[string]int64{}
	for name, quantity := range r.GetScalarResources() {
		if quantity != 0 {
			scalars[string(name)] = quantity
		}
	}
	out := map[string]any{
		"milli_cpu": r.GetMilliCPU(), "memory": r.GetMemory(), "ephemeral_storage": r.GetEphemeralStorage(),
		"scalars": scalars,
	}
	if withPods {
		out["pods"] = r.GetAllowedPodNumber()
	}
	return out
}

func podUIDs(pods []fwk.PodInfo) []string {
	uids := []string{}
	for _, p := range pods {
		uids = append(uids, string(p.GetPod().UID))
	}
	return uids
}

func nodeName(info fwk.NodeInfo) string {
	if node := info.Node(); node != nil {
		return node.Name
	}
	return ""
}

// nodeInfoJSON is the canonical NODE object of a NodeInfo clone (Dump, the snapshot, AddNode's return).
func nodeInfoJSON(info fwk.NodeInfo) map[string]any {
	ports := [][]any{}
	for ip, protocolPorts := range info.GetUsedPorts() {
		for pp := range protocolPorts {
			ports = append(ports, []any{ip, pp.Protocol, pp.Port})
		}
	}
	sort.Slice(ports, func(i, j int) bool {
		a, b := ports[i], ports[j]
		if a[0] != b[0] {
			return a[0].(string) < b[0].(string)
		}
		if a[1] != b[1] {
			return a[1].(string) < b[1].(string)
		}
		return a[2].(int32) < b[2].(int32)
	})
	images := map[string]any{}
	for name, state := range info.GetImageStates() {
		images[name] = map[string]any{"size": state.Size, "num_nodes": state.NumNodes}
	}
	pvcs := map[string]int{}
	for key, count := range info.GetPVCRefCounts() {
		pvcs[key] = count
	}
	nonZero := info.GetNonZeroRequested()
	return map[string]any{
		"node":                             nodeName(info),
		"pods":                             podUIDs(info.GetPods()),
		"requested":                        resourceJSON(info.GetRequested(), false),
		"non_zero_requested":               map[string]any{"milli_cpu": nonZero.GetMilliCPU(), "memory": nonZero.GetMemory()},
		"allocatable":                      resourceJSON(info.GetAllocatable(), true),
		"used_ports":                       ports,
		"pvc_ref_counts":                   pvcs,
		"pods_with_affinity":               podUIDs(info.GetPodsWithAffinity()),
		"pods_with_required_anti_affinity": podUIDs(info.GetPodsWithRequiredAntiAffinity()),
		"image_states":                     images,
	}
}

func listNames(infos []fwk.NodeInfo, err error) []string {
	if err != nil {
		panic(fmt.Sprintf("a Snapshot lister failed: %v", err)) // the listers never fail
	}
	names := []string{}
	for _, info := range infos {
		names = append(names, nodeName(info))
	}
	return names
}

func (a *cacheArea) snapshotJSON() map[string]any {
	nodes := map[string]any{}
	for name := range a.nodeNames {
		if info, err := a.snapshot.Get(name); err == nil {
			nodes[name] = nodeInfoJSON(info)
		}
	}
	used := []string{}
	for key := range a.pvcKeys {
		if a.snapshot.IsPVCUsedByPods(key) {
			used = append(used, key)
		}
	}
	sort.Strings(used)
	return map[string]any{
		"list":          listNames(a.snapshot.List()),
		"affinity":      listNames(a.snapshot.HavePodsWithAffinityList()),
		"anti_affinity": listNames(a.snapshot.HavePodsWithRequiredAntiAffinityList()),
		"used_pvcs":     used,
		"nodes":         nodes,
	}
}

// gauge is the value last published under the scheduler_cache_size label (0 before any publication).
func gauge(label string) int64 {
	var m dto.Metric
	if err := metrics.CacheSize.WithLabelValues(label).Write(&m); err != nil {
		panic(fmt.Sprintf("reading scheduler_cache_size{type=%q}: %v", label, err))
	}
	return int64(m.GetGauge().GetValue())
}

func (a *cacheArea) observe(returned *framework.NodeInfo) map[string]any {
	dump := a.cache.Dump()
	nodes := map[string]any{}
	for name, info := range dump.Nodes {
		nodes[name] = nodeInfoJSON(info)
	}
	recency := a.recency()
	assumed := sortedKeys(dump.AssumedPods)
	var returnedJSON any = "none"
	if returned != nil {
		returnedJSON = nodeInfoJSON(returned)
	}
	return map[string]any{
		"nodes":    nodes,
		"assumed":  assumed,
		"recency":  recency,
		"snapshot": a.snapshotJSON(),
		"metrics": map[string]any{
			"assumed_pods": gauge("assumed_pods"), "pods": gauge("pods"), "nodes": gauge("nodes"),
		},
		"returned": returnedJSON,
	}
}

// recency is the cache's own most-recently-updated list: cacheImpl.headNode, then each item's next, named by the
// key cacheImpl.nodes holds that item under (the items hold NodeInfos, whose Node() is nil for a node known only
// from its pods). UpdateSnapshot walks this list; read only.
func (a *cacheArea) recency() []string {
	impl := reflect.NewAt(reflect.TypeOf(a.cache).Elem(), a.impl).Elem()
	names := map[unsafe.Pointer]string{}
	items := field(impl, "nodes")
	for iter := items.MapRange(); iter.Next(); {
		names[iter.Value().UnsafePointer()] = iter.Key().String()
	}
	out := []string{}
	for item := field(impl, "headNode"); !item.IsNil(); item = field(pointee(item), "next") {
		name, ok := names[item.UnsafePointer()]
		if !ok || len(out) > items.Len() {
			panic(fmt.Sprintf("the cache's recency list does not match cacheImpl.nodes after %v", out))
		}
		out = append(out, name)
	}
	return out
}

func sortedKeys[T any](set map[string]T) []string {
	keys := []string{}
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// unreachable is the requestError of an operation that needs an unexported function, with -exported-only.
func unreachable(function string) requestError {
	return requestError{fmt.Errorf("-exported-only: %s is not exported", function)}
}

// requestError marks a request the adapter cannot serve (as opposed to an error the cache returned).
type requestError struct{ err error }

func (e requestError) Error() string { return e.err.Error() }

func isRequestError(err error) bool {
	var r requestError
	return errors.As(err, &r)
}
