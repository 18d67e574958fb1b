package main

// What an importer cannot reach through the packages' exports, and how this adapter reaches it.
//
// Calls. The cache's clock-taking entry points and the call queue's run-loop half are unexported: Kubernetes'
// own tests call them from inside the package (cache_test.go: cache.finishBinding(logger, pod, now),
// cache.cleanupAssumedPods(logger, now); call_queue_test.go: cq.pop(), cq.finalize(call)). This adapter links
// to those very functions by name with //go:linkname (a pull-only link to a symbol of a non-standard-library
// package, which the Go linker allows; the empty internals.s lets the declarations go without bodies). Each
// declared signature is the method's with its receiver as the first parameter, an unsafe.Pointer to the
// unexported receiver type. Nothing is re-implemented: the linked functions are Kubernetes' compiled code.
//
//   - (*cacheImpl).finishBinding(logger, pod, now): the exported FinishBinding is exactly this with time.Now().
//   - (*cacheImpl).cleanupAssumedPods(logger, now): the body of the cache's 1 s background loop (cache.run),
//     which New starts with time.Now(); the adapter stops that loop instead (see newCacheArea).
//     Both exist up to v1.35 (PR #136204 removed them): release_v1_34.go and release_v1_35.go link them.
//   - (*goroutinesLimiter).acquire() and release(): v1.34's Run limiter (release_v1_34.go).
//   - (*cacheImpl).updateMetrics(): publishes scheduler_cache_size; only cleanupAssumedPods calls it.
//   - (*callQueue).pop(), (*callQueue).finalize(call), (*queuedAPICall).sendOnFinish(err): what
//     APIDispatcher.Run's loop and its per-call goroutines do; Run itself pops eagerly in a goroutine, so a
//     vector could not say when a call is popped or finishes.
//   - (*PriorityQueue).flushBackoffQCompleted(logger), (*PriorityQueue).flushUnschedulablePodsLeftover(logger)
//     (v1.37: flushUnschedulableEntitiesLeftover): the bodies of the scheduling queue's two Run loops
//     (queue_area.go plays the loops on the fake clock), and (*backoffQueue).getBackoffTime(pInfo) (v1.37: of a
//     queued entity): a backing-off pod's expiry as the queue computes it. Declared per release in
//     queue_pod_keyed.go (v1.34 to v1.36) and queue_entity_keyed.go (v1.37).
//   - (*Scheduler).findNodesThatFitPod(ctx, fwk, state, pod), prioritizeNodes(ctx, extenders, fwk, state, pod,
//     nodes), newSortedNodeScores(list) and (*sortedNodeScores).Pop(): what schedulePod calls between
//     UpdateSnapshot and its result (cycle_schedule.go; declared per release in cycle_release_v1_3x.go: v1.34 links
//     selectHost instead of the sorted list, v1.37 exports it). schedulePod itself returns only the chosen host,
//     not the feasible nodes, the Filter statuses or the scores the cycle area observes.
//
// Every declared signature is checked against the Go source of the release being built: linkname_test.go
// type-checks the linked packages and fails if a target is gone or its parameters or results changed (the linker
// checks names only; a changed signature would otherwise corrupt memory instead of failing). The Makefile runs
// it before each build.
//
// State. Observations read unexported fields with reflect (read only, never written): the call queue's
// apiCalls, callsQueue, inFlightEntities and closed, the in-tree calls' fields (PodStatusPatchCall's
// podStatus, newCondition(s), nominatingInfo, executed; PodBindingCall's binding), and the cache's recency list
// (cacheImpl.headNode and the items' next pointers, named through cacheImpl.nodes), and the scheduling queue's
// activeQueue (queue, inFlightEvents, closed), backoffQueue (podBackoffQ, podErrorBackoffQ; v1.37: entityBackoffQ,
// entityErrorBackoffQ), unschedulablePods.podInfoMap (v1.37: unschedulableEntities.entityInfoMap),
// PriorityQueue.moveRequestCycle (up to v1.36) and nominator.nominatedPods (queue_area.go). Everything else the
// cache exports is read through its exports: Dump(), the NodeInfo fields, and the Snapshot's listers
// (cache_area.go).

import (
	"fmt"
	"reflect"
	"unsafe"

	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
)

//go:linkname cacheUpdateMetrics k8s.io/kubernetes/pkg/scheduler/backend/cache.(*cacheImpl).updateMetrics
func cacheUpdateMetrics(c unsafe.Pointer)

//go:linkname callQueuePop k8s.io/kubernetes/pkg/scheduler/backend/api_dispatcher.(*callQueue).pop
func callQueuePop(q unsafe.Pointer) (unsafe.Pointer, error)

//go:linkname callQueueFinalize k8s.io/kubernetes/pkg/scheduler/backend/api_dispatcher.(*callQueue).finalize
func callQueueFinalize(q unsafe.Pointer, call unsafe.Pointer)

//go:linkname queuedCallSendOnFinish k8s.io/kubernetes/pkg/scheduler/backend/api_dispatcher.(*queuedAPICall).sendOnFinish
func queuedCallSendOnFinish(call unsafe.Pointer, err error)

// cacheImpl is the *cacheImpl inside the Cache interface value New returns (its data word); fails if the
// dynamic type is not the expected one, rather than handing a wrong pointer to the linked functions.
func cacheImpl(c cache.Cache) unsafe.Pointer {
	value := reflect.ValueOf(c)
	if value.Kind() != reflect.Pointer || value.Type().String() != "*cache.cacheImpl" {
		panic(fmt.Sprintf("cache.New returned a %s, not a *cache.cacheImpl", value.Type()))
	}
	return value.UnsafePointer()
}

// field is the named field of the addressable struct value v, readable even when unexported. It panics naming
// the field if the struct has none by that name (a Kubernetes version whose layout this adapter does not know).
func field(v reflect.Value, name string) reflect.Value {
	f := v.FieldByName(name)
	if !f.IsValid() {
		panic(fmt.Sprintf("%s has no field %q", v.Type(), name))
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// pointee is the struct a (possibly unexported) pointer value points to, addressable.
func pointee(p reflect.Value) reflect.Value {
	return reflect.NewAt(p.Type().Elem(), p.UnsafePointer()).Elem()
}
