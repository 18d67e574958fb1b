// Command kubernetes-adapter is a conformance adapter over the real kube-scheduler code: the scheduler cache,
// its node tree and Snapshot (k8s.io/kubernetes/pkg/scheduler/backend/cache) and the API dispatcher's call queue
// (pkg/scheduler/backend/api_dispatcher), compiled from the k8s.io/kubernetes module this module requires. It
// speaks the JSON-lines protocol of docs/conformance.md on stdin and stdout:
//
//	ksspec conform --adapter examples/kubernetes-adapter/bin/kubernetes-adapter --profile v1.35
//
// Paths on which Kubernetes ends the process are answered as "fatal" results: klog.FlushAndExit through klog's
// exit hook (klog.OsExit), a nil dereference through recover. internals.go says what is reached without the
// packages' exports and how. Flags: -v N logs the Kubernetes code's klog output at verbosity N to stderr (the
// default discards it); -exported-only calls nothing unexported (FinishBinding then takes time.Now(), and the
// operations that need an unexported function are refused), to measure what an importer reaches without
// //go:linkname.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/go-logr/logr"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

const protocolVersion = "1"

// areas: the queue area is queue_area.go's (queueAreas) and the cycle area cycle_area.go's (cycleAreas), not yet
// enabled for every release.
var areas = append(append([]string{"cache", "snapshot", "node_tree", "dispatcher"}, queueAreas...), cycleAreas...)

type request struct {
	Type            string      `json:"type"`
	ID              json.Number `json:"id"`
	ProtocolVersion string      `json:"protocol_version"`
	FormatVersion   string      `json:"format_version"`
	Vector          string      `json:"vector"`
	Area            string      `json:"area"`
	Profile         string      `json:"profile"`
	TTLNs           int64       `json:"ttl_ns"`
	// Preemption is a vector's "preemption" (format 4.4.0): the profile runs DefaultPreemption as PostFilter.
	Preemption bool            `json:"preemption"`
	Index      int             `json:"index"`
	Op         string          `json:"op"`
	Args       json.RawMessage `json:"args"`
}

type response map[string]any

// exportedOnly is the -exported-only flag.
var exportedOnly bool

// exitCalled is what klog.FlushAndExit panics with instead of exiting (klog.OsExit, set in main).
type exitCalled struct{ code int }

type server struct {
	logger     klog.Logger
	cache      *cacheArea
	dispatcher *dispatcherArea
	queue      *queueArea
	cycle      *cycleArea
	// dead says why the instance cannot go on (a fatal step: the process would have exited), or is "".
	dead string
}

func (s *server) handle(r request) response {
	id := r.ID
	switch r.Type {
	case "hello":
		return response{"type": "hello", "id": id, "protocol_version": protocolVersion,
			"implementation": "kubernetes " + kubernetesVersion + " (pkg/scheduler/backend/cache, api_dispatcher, queue; pkg/scheduler)",
			"language":       "go", "version": kubernetesVersion, "homepage": "https://github.com/kubernetes/kubernetes",
			"capabilities": map[string]any{"areas": areas, "profiles": []string{profile}}}
	case "reset":
		if r.Profile != profile {
			return failure(id, fmt.Sprintf("this build is Kubernetes %s: profile %q only, not %q", kubernetesVersion, profile, r.Profile))
		}
		if r.Preemption && r.Area != "cycle" {
			// Only the cycle area calls RunPostFilterPlugins (cycle_preemption.go): refuse rather than run the
			// vector as if DefaultPreemption were disabled.
			return failure(id, "this adapter runs PostFilter (DefaultPreemption) in the cycle area only")
		}
		if s.queue != nil {
			s.queue.shutdown()
		}
		if s.cycle != nil {
			s.cycle.shutdown()
		}
		s.cache, s.dispatcher, s.queue, s.cycle, s.dead = nil, nil, nil, nil, ""
		switch r.Area {
		case "cache", "snapshot", "node_tree":
			s.cache = newCacheArea(s.logger, time.Duration(r.TTLNs))
		case "dispatcher":
			s.dispatcher = newDispatcherArea()
		case "queue":
			queue, err := newQueueArea(s.logger)
			if err != nil {
				return failure(id, fmt.Sprintf("NewPriorityQueue: %v", err))
			}
			s.queue = queue
		case "cycle":
			cycle, err := newCycleArea(s.logger, time.Duration(r.TTLNs), r.Preemption)
			if err != nil {
				return failure(id, fmt.Sprintf("scheduler.New: %v", err))
			}
			s.cycle = cycle
		default:
			return failure(id, fmt.Sprintf("area %q is not supported; supported: %s", r.Area, strings.Join(areas, ", ")))
		}
		return response{"type": "ready", "id": id}
	case "step":
		result := s.step(r.Op, r.Args)
		if result["type"] == "failure" {
			result["id"] = id
			return result
		}
		result["type"], result["id"] = "result", id
		return result
	case "bye":
		return response{"type": "bye", "id": id}
	}
	return failure(id, fmt.Sprintf("unknown request type %q", r.Type))
}

func failure(id json.Number, message string) response {
	return response{"type": "failure", "id": id, "message": message}
}

// step applies one operation and reports how it ended. A klog.FlushAndExit or a runtime panic inside the
// Kubernetes code becomes a fatal result; the instance is then dead until the next reset.
func (s *server) step(op string, args json.RawMessage) (result response) {
	if s.dead != "" {
		return response{"type": "failure", "message": "the instance is gone: " + s.dead}
	}
	if s.cache == nil && s.dispatcher == nil && s.queue == nil && s.cycle == nil {
		return response{"type": "failure", "message": "step before reset"}
	}
	defer func() {
		recovered := recover()
		if recovered == nil {
			return
		}
		kind, message := "Panic", fmt.Sprint(recovered)
		var runtimeError runtime.Error
		switch v := recovered.(type) {
		case exitCalled:
			kind, message = fatalKind(op), fmt.Sprintf("klog.FlushAndExit(_, %d)", v.code)
		case error:
			if errors.As(v, &runtimeError) && strings.Contains(v.Error(), "nil pointer dereference") {
				kind = "NilNodeDereference"
			}
		}
		s.dead = fmt.Sprintf("step %s ended the process (%s: %s)", op, kind, message)
		result = response{"status": "fatal", "kind": kind, "message": message}
	}()
	if s.cache != nil {
		returned, err := s.cache.apply(op, args)
		switch {
		case isRequestError(err):
			return response{"type": "failure", "message": err.Error()}
		case err != nil:
			return response{"status": "error", "kind": cacheErrorKind(err), "message": err.Error(),
				"observation": s.cache.observe(nil)}
		}
		return response{"status": "ok", "observation": s.cache.observe(returned)}
	}
	if s.queue != nil {
		return s.queueStep(op, args)
	}
	if s.cycle != nil {
		return s.cycle.step(op, args)
	}
	err := s.dispatcher.apply(op, args)
	var guard notEnabled
	switch {
	case isRequestError(err):
		return response{"type": "failure", "message": err.Error()}
	case errors.As(err, &guard):
		return response{"status": "error", "kind": "NotEnabled", "message": err.Error(), "observation": s.dispatcher.observe()}
	case err != nil:
		return response{"status": "error", "kind": outcomeKind(err), "message": err.Error(), "observation": s.dispatcher.observe()}
	}
	return response{"status": "ok", "observation": s.dispatcher.observe()}
}

func serve(in io.Reader, out io.Writer, s *server) error {
	reader := bufio.NewReaderSize(in, 1<<20)
	writer := bufio.NewWriter(out)
	encoder := json.NewEncoder(writer)
	encoder.SetEscapeHTML(false)
	for {
		line, readErr := reader.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var r request
			var reply response
			if err := json.Unmarshal(line, &r); err != nil {
				reply = failure("0", fmt.Sprintf("not a protocol request: %v", err))
			} else {
				reply = s.handle(r)
			}
			if err := encoder.Encode(reply); err != nil {
				return err
			}
			if err := writer.Flush(); err != nil {
				return err
			}
			if r.Type == "bye" {
				return nil
			}
		}
		if readErr == io.EOF {
			return nil
		}
		if readErr != nil {
			return readErr
		}
	}
}

// enableGates turns on what the dispatcher area is the code of: SchedulerAsyncAPICalls is beta and off by default
// in v1.34 and again from v1.35.x (kube_features.go of v1.35.8, v1.36.5 and v1.37.2 lists only the v1.34 entry;
// v1.35.0 had it on), and with it off the scheduler makes no API dispatcher and metrics.Register leaves
// pending_async_api_calls unregistered (it would read 0). The adapter runs it as a cluster started with
// --feature-gates=SchedulerAsyncAPICalls=true does; the cache does not read the gate.
func enableGates() error {
	return utilfeature.DefaultMutableFeatureGate.Set("SchedulerAsyncAPICalls=true")
}

func main() {
	verbosity := flag.Int("v", -1, "log the Kubernetes code's klog output at this verbosity to stderr (-1: none)")
	flag.BoolVar(&exportedOnly, "exported-only", false, "call only exported functions; refuse operations that need others")
	flag.Parse()
	logger := logr.Discard()
	if *verbosity >= 0 {
		flags := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(flags)
		_ = flags.Set("v", fmt.Sprint(*verbosity))
		logger = klog.Background()
	} else {
		klog.SetLogger(logr.Discard()) // klog's global functions (FlushAndExit's flush) log nowhere either
	}
	klog.OsExit = func(code int) { panic(exitCalled{code}) }
	pristineGate = utilfeature.DefaultMutableFeatureGate.DeepCopy() // before enableGates (queue_area.go)
	if err := enableGates(); err != nil {
		fmt.Fprintln(os.Stderr, "kubernetes-adapter:", err)
		os.Exit(1)
	}
	metrics.Register() // scheduler_cache_size exists only once the scheduler's metrics are registered
	if err := serve(os.Stdin, os.Stdout, &server{logger: logger}); err != nil {
		fmt.Fprintln(os.Stderr, "kubernetes-adapter:", err)
		os.Exit(1)
	}
}
