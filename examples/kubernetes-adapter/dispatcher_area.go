package main

// The dispatcher area: the real APIDispatcher and its callQueue (pkg/scheduler/backend/api_dispatcher) with the
// in-tree calls (pkg/scheduler/framework/api_calls). Add, SyncObject and Close are called through the exports;
// the adapter plays APIDispatcher.Run, step by step: pop_call is Run's loop popping a call and its goroutine
// starting Execute; finish_call is that goroutine's end (finalize, then sendOnFinish with the vector's result).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unsafe"

	dto "github.com/prometheus/client_model/go"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clientset "k8s.io/client-go/kubernetes"
	corev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	apidispatcher "k8s.io/kubernetes/pkg/scheduler/backend/api_dispatcher"
	apicalls "k8s.io/kubernetes/pkg/scheduler/framework/api_calls"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// parallelization is what the scheduler passes to apidispatcher.New (its Parallelism, 16 by default); v1.34.0's
// goroutine limiter caps executing calls at it, v1.35.0 ignores it.
const parallelization = 16

type dispatcherArea struct {
	dispatcher *apidispatcher.APIDispatcher
	queue      unsafe.Pointer // its *callQueue
	// One OnFinish channel per add_call, numbered from 0 like the spec's callers; buffered so that no value the
	// real code sends is dropped (sendOnFinish drops a value when the channel is full).
	callers  []chan error
	callerOf map[chan<- error]int
	// The *queuedAPICall each pop handed out, by UID, until its finish_call.
	running map[types.UID]unsafe.Pointer
	limiter limiter
	// sent is what the real code sent to callers during the current step, in the order it sent it (collect).
	sent [][]any
	// overlap says why the order of two values could not be read, or is "" (see collect).
	overlap string
}

func newDispatcherArea() *dispatcherArea {
	d := apidispatcher.New(recordingClient{}, parallelization, apicalls.Relevances)
	metrics.AsyncAPIPendingCalls.Reset() // the gauge is process-global: a new dispatcher starts at 0
	return &dispatcherArea{
		dispatcher: d,
		queue:      field(reflect.ValueOf(d).Elem(), "callQueue").UnsafePointer(),
		callerOf:   map[chan<- error]int{},
		running:    map[types.UID]unsafe.Pointer{},
		limiter:    newLimiter(d),
	}
}

type addCallArgs struct {
	Call callJSON `json:"call"`
}

type finishCallArgs struct {
	UID   string  `json:"uid"`
	Error *string `json:"error"`
}

type syncObjectArgs struct {
	UID    string        `json:"uid"`
	Status podStatusJSON `json:"status"`
}

// apply runs one operation; the error is Add's (a Go error the spec names by outcome kind) or a requestError.
func (a *dispatcherArea) apply(op string, raw json.RawMessage) error {
	switch op {
	case "add_call":
		var args addCallArgs
		if err := strict(raw, &args, op); err != nil {
			return requestError{err}
		}
		call, err := args.Call.toCall()
		if err != nil {
			return requestError{err}
		}
		onFinish := make(chan error, 8)
		a.callerOf[onFinish] = len(a.callers)
		a.callers = append(a.callers, onFinish)
		return a.dispatcher.Add(&observedCall{APICall: call, area: a}, fwk.APICallOptions{OnFinish: onFinish})
	case "pop_call":
		if err := strict(raw, &noArgs{}, op); err != nil {
			return requestError{err}
		}
		if exportedOnly {
			return unreachable("callQueue.pop")
		}
		if !a.canPop() {
			return notEnabled{"the run loop cannot pop now (pop would wait on an empty callsQueue, the dispatcher is closed, or acquire would wait for a goroutine)"}
		}
		// Run: acquire a goroutine (v1.34.0 only), pop, and start executing the call in that goroutine. Execute
		// marks a status patch as executed first thing (Sync stops refreshing its base status); the request it
		// then makes goes to recordingClient, and its result is not the call's: finish_call says how it ends.
		a.limiter.acquire()
		popped, err := callQueuePop(a.queue)
		if err != nil {
			return fmt.Errorf("callQueue.pop: %w", err)
		}
		call := a.queuedCall(popped)
		_ = call.Execute(context.Background(), recordingClient{}) // observedCall: the in-tree call's Execute
		a.running[call.UID()] = popped
		return nil
	case "finish_call":
		var args finishCallArgs
		if err := strict(raw, &args, op); err != nil {
			return requestError{err}
		}
		if exportedOnly {
			return unreachable("callQueue.finalize")
		}
		popped, ok := a.running[types.UID(args.UID)]
		if !ok {
			return notEnabled{fmt.Sprintf("no call for %q is executing", args.UID)}
		}
		delete(a.running, types.UID(args.UID))
		var result error
		if args.Error != nil {
			result = errors.New(*args.Error)
		}
		// Run's goroutine after Execute returned: finalize, then tell the caller (then release, v1.34.0).
		callQueueFinalize(a.queue, popped)
		queuedCallSendOnFinish(popped, result)
		a.limiter.release()
		return nil
	case "sync_object":
		var args syncObjectArgs
		if err := strict(raw, &args, op); err != nil {
			return requestError{err}
		}
		_, err := a.dispatcher.SyncObject(podForStatus(args.UID, args.Status.toStatus()))
		return err
	case "close_dispatcher":
		if err := strict(raw, &noArgs{}, op); err != nil {
			return requestError{err}
		}
		a.dispatcher.Close()
		return nil
	}
	return requestError{fmt.Errorf("operation %q is not one of the dispatcher area's", op)}
}

// outcomeKind classifies a value sent to a caller, or an error Add returned, as errors.Is would
// (spec/dispatcher/call_queue.py OutcomeKind).
func outcomeKind(err error) string {
	switch {
	case err == nil:
		return "Success"
	case errors.Is(err, fwk.ErrCallSkipped):
		return "Skipped"
	case errors.Is(err, fwk.ErrCallOverwritten):
		return "Overwritten"
	case strings.HasPrefix(err.Error(), "failed to merge API calls"):
		return "MergeFailed"
	case err.Error() == "api dispatcher is closed":
		return "Closed"
	}
	return "ExecutionError"
}

// notEnabled answers a step whose guard is false (spec: the NotEnabled kind; no vector expects it).
type notEnabled struct{ why string }

func (e notEnabled) Error() string { return e.why }

// ---------------------------------------------------------------------------------------------
// The queue's state, read from the real structures
// ---------------------------------------------------------------------------------------------

func (a *dispatcherArea) queueValue() reflect.Value {
	return pointee(field(reflect.ValueOf(a.dispatcher).Elem(), "callQueue"))
}

// fifo is callsQueue's contents, oldest first, read without consuming them (buffer.Ring wraps a
// TypedRingGrowing: data[(beg+i) % n] for i < readable).
func (a *dispatcherArea) fifo() []string {
	growing := field(field(a.queueValue(), "callsQueue"), "growing")
	data := field(growing, "data")
	n, beg, readable := int(field(growing, "n").Int()), int(field(growing, "beg").Int()), int(field(growing, "readable").Int())
	uids := []string{}
	for i := 0; i < readable; i++ {
		uids = append(uids, data.Index((beg+i)%n).String())
	}
	return uids
}

func (a *dispatcherArea) inFlight() []string {
	uids := []string{}
	for _, key := range field(a.queueValue(), "inFlightEntities").MapKeys() {
		uids = append(uids, key.String())
	}
	sort.Strings(uids)
	return uids
}

func (a *dispatcherArea) closed() bool {
	return field(a.queueValue(), "closed").Bool()
}

// canPop is whether Run's loop pops now without waiting, read from the structures its calls wait on: Run stops once
// the dispatcher is closed (Close cancels its context and closes the queue: the closed flag), v1.34's
// goroutinesLimiter.acquire waits while every goroutine is taken (limiter.available), and callQueue.pop waits
// while callsQueue.Len() == 0 (the ring's own Len).
func (a *dispatcherArea) canPop() bool {
	queued := field(a.queueValue(), "callsQueue").Addr().MethodByName("Len").Call(nil)[0].Int()
	return !a.closed() && a.limiter.available() && queued > 0
}

// queuedCall is the APICall embedded in the *queuedAPICall p (the struct type is apiCalls' element type).
func (a *dispatcherArea) queuedCall(p unsafe.Pointer) fwk.APICall {
	queuedType := field(a.queueValue(), "apiCalls").Type().Elem().Elem()
	return field(reflect.NewAt(queuedType, p).Elem(), "APICall").Interface().(fwk.APICall)
}

// observedCall is the in-tree call as add_call hands it to Add: every method is the in-tree call's, and the ones
// the call queue calls (CallType, UID, IsNoOp, Merge, Sync) first collect what was sent to callers so far. The
// queue sends to a caller only under its lock, from merge, enqueue, syncObject (and sendOnFinish after finalize),
// and between any two such sends it calls one of these methods (merge sends, then enqueue asks IsNoOp; syncObject
// asks Sync and IsNoOp before removePending sends), so each collect finds at most one new value and the order
// observed is the order sent. Merge passes the old call's in-tree call, as the in-tree Merge type-asserts it.
type observedCall struct {
	fwk.APICall
	area *dispatcherArea
}

func (c *observedCall) CallType() fwk.APICallType { c.area.collect(); return c.APICall.CallType() }
func (c *observedCall) UID() types.UID            { c.area.collect(); return c.APICall.UID() }
func (c *observedCall) IsNoOp() bool              { c.area.collect(); return c.APICall.IsNoOp() }

func (c *observedCall) Sync(obj metav1.Object) (metav1.Object, error) {
	c.area.collect()
	return c.APICall.Sync(obj)
}

func (c *observedCall) Merge(old fwk.APICall) error {
	c.area.collect()
	return c.APICall.Merge(inTree(old))
}

// inTree is the in-tree call inside an observedCall (or the call itself).
func inTree(call fwk.APICall) fwk.APICall {
	if observed, ok := call.(*observedCall); ok {
		return observed.APICall
	}
	return call
}

// collect takes every value sent to a caller since the last collect into a.sent. Two values found at once could
// not be ordered: the step then reports the overlap instead of an order the adapter would choose.
func (a *dispatcherArea) collect() {
	var found [][]any
	for number, ch := range a.callers {
		for drained := false; !drained; {
			select {
			case err := <-ch:
				found = append(found, []any{number, outcomeKind(err)})
			default:
				drained = true
			}
		}
	}
	if len(found) > 1 && a.overlap == "" {
		a.overlap = fmt.Sprintf("values %v were sent between two observation points; their order is unknown", found)
	}
	a.sent = append(a.sent, found...)
}

func (a *dispatcherArea) calls() map[string]any {
	out := map[string]any{}
	apiCalls := field(a.queueValue(), "apiCalls")
	iter := apiCalls.MapRange()
	for iter.Next() {
		queued := pointee(iter.Value())
		onFinish := field(queued, "onFinish").Interface().(chan<- error)
		caller, ok := a.callerOf[onFinish]
		if !ok {
			panic(fmt.Sprintf("the call for %s has an OnFinish channel no add_call made", iter.Key().String()))
		}
		call := inTree(field(queued, "APICall").Interface().(fwk.APICall))
		out[iter.Key().String()] = map[string]any{"caller": caller, "call": callJSONOf(call)}
	}
	return out
}

// callJSONOf is the canonical CALL object of an in-tree call, from its fields.
func callJSONOf(call fwk.APICall) map[string]any {
	switch c := call.(type) {
	case *apicalls.PodBindingCall:
		binding := field(reflect.ValueOf(c).Elem(), "binding").Interface().(*v1.Binding)
		return map[string]any{"call_type": string(apicalls.PodBinding), "uid": string(c.UID()), "node_name": binding.Target.Name}
	case *apicalls.PodStatusPatchCall:
		v := reflect.ValueOf(c).Elem()
		status := field(v, "podStatus").Interface().(*v1.PodStatus)
		newConditions := statusPatchConditions(v)
		conditions := []any{}
		sorted := append([]v1.PodCondition(nil), status.Conditions...)
		sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Type < sorted[j].Type })
		for _, condition := range sorted {
			conditions = append(conditions, conditionJSONOf(&condition))
		}
		out := map[string]any{
			"call_type": string(apicalls.PodStatusPatch),
			"uid":       string(c.UID()),
			"status":    map[string]any{"conditions": conditions, "nominated_node_name": status.NominatedNodeName},
			"executed":  field(v, "executed").Bool(),
		}
		switch len(newConditions) {
		case 0:
		case 1:
			out["condition"] = conditionJSONOf(newConditions[0])
		default: // v1.37's merge keeps the old call's conditions of other types; the spec's call has one
			all := []any{}
			for _, condition := range newConditions {
				all = append(all, conditionJSONOf(condition))
			}
			out["conditions"] = all
		}
		if info := field(v, "nominatingInfo").Interface().(*nominatingInfo); info != nil {
			out["nominating_info"] = map[string]any{
				"mode": nominatingModeName(info.Mode()), "nominated_node_name": info.NominatedNodeName,
			}
		}
		return out
	}
	panic(fmt.Sprintf("a call of type %T is not an in-tree call", call))
}

func conditionJSONOf(c *v1.PodCondition) map[string]any {
	return map[string]any{"type": string(c.Type), "status": string(c.Status), "reason": c.Reason, "message": c.Message}
}

// told is what the real code sent to callers during this step, in the order sent (collect), and resets it.
func (a *dispatcherArea) told() [][]any {
	a.collect()
	out := a.sent
	if out == nil {
		out = [][]any{}
	}
	a.sent = nil
	return out
}

// pendingGauge is scheduler_pending_async_api_calls per call type, as the call queue's code sets it.
func pendingGauge() map[string]any {
	out := map[string]any{}
	for _, callType := range []fwk.APICallType{apicalls.PodBinding, apicalls.PodStatusPatch} {
		var m dto.Metric
		if err := metrics.AsyncAPIPendingCalls.WithLabelValues(string(callType)).Write(&m); err != nil {
			panic(fmt.Sprintf("reading pending_async_api_calls{call_type=%q}: %v", callType, err))
		}
		out[string(callType)] = int64(m.GetGauge().GetValue())
	}
	return out
}

func (a *dispatcherArea) observe() map[string]any {
	told := a.told()
	if a.overlap != "" {
		panic(a.overlap)
	}
	return map[string]any{
		"fifo": a.fifo(), "in_flight": a.inFlight(), "closed": a.closed(), "calls": a.calls(),
		"told": told, "can_pop": a.canPop(), "metrics": map[string]any{"pending_calls": pendingGauge()},
	}
}

// ---------------------------------------------------------------------------------------------
// The client Execute talks to
// ---------------------------------------------------------------------------------------------

// recordingClient answers the two requests the in-tree calls make (a pod binding, a pod status patch) with
// success; any other request would be a nil-interface call, which no in-tree call makes.
type recordingClient struct{ clientset.Interface }

func (recordingClient) CoreV1() corev1.CoreV1Interface { return recordingCore{} }

type recordingCore struct{ corev1.CoreV1Interface }

func (recordingCore) Pods(string) corev1.PodInterface { return recordingPods{} }

type recordingPods struct{ corev1.PodInterface }

func (recordingPods) Bind(context.Context, *v1.Binding, metav1.CreateOptions) error { return nil }

func (recordingPods) Patch(_ context.Context, name string, _ types.PatchType, _ []byte, _ metav1.PatchOptions,
	_ ...string) (*v1.Pod, error) {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
}
