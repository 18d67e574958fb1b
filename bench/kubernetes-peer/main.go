// Command kubernetes-peer runs Kubernetes' own scheduler (k8s.io/kubernetes v1.35.8, from the Go module cache) on a
// workload exported by bench/kubernetes_peer.py from refimpl's simulator, so `make bench` can print refimpl :
// Kubernetes per CPU-second on the same nodes and pods, in one run, on one machine.
//
//	kubernetes-peer -workload FILE -mode schedule -plugins default|NAME,NAME,... -batching=true|false
//	kubernetes-peer -workload FILE -mode snapshot
//
// schedule: scheduler.New with a fake clientset (fake.NewSimpleClientset: without NewClientset's managed fields, which
// cost more CPU than the scheduling cycle itself) whose pods/binding create writes
// spec.nodeName back (so the informers confirm the binding, as an API server's watch does), real shared informers,
// event recording off (a FakeRecorder without a channel drops every event), klog silenced, GOMAXPROCS=1. The nodes
// and pods are in the clientset before the informers start; the timed part runs from sched.Run until every pod is
// bound. snapshot: the scheduler cache (pkg/scheduler/backend/cache) holding the workload's nodes and pods, timing
// UpdateSnapshot into a new snapshot (full), after one pod was added to one node, and with nothing changed.
//
// It prints one JSON object on stdout. CPU time is this process's user + system time (getrusage), which counts
// the informers, the garbage collector and the fake clientset as well as the scheduling cycle.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

// Node and Pod are the workload file's objects (bench/kubernetes_peer.py writes them from refimpl's simulator).
type Node struct {
	Name     string            `json:"name"`
	MilliCPU int64             `json:"milli_cpu"`
	Memory   int64             `json:"memory"`
	Pods     int64             `json:"pods"`
	Labels   map[string]string `json:"labels"`
}

type Pod struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	UID       string `json:"uid"`
	MilliCPU  int64  `json:"milli_cpu"`
	Memory    int64  `json:"memory"`
	NodeName  string `json:"node_name"`
}

type Workload struct {
	Nodes []Node `json:"nodes"`
	Pods  []Pod  `json:"pods"`
}

// QueueSort is the queue sort plugin every Kubernetes profile needs; refimpl's queue orders by priority as
// PrioritySort does, so a plugin list from refimpl (-plugins A,B,...) gets it added in front.
const QueueSort = "PrioritySort"

func cpuSeconds() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		panic(err)
	}
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9
}

func v1Node(n Node) *v1.Node {
	allocatable := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(n.MilliCPU, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(n.Memory, resource.BinarySI),
		v1.ResourcePods:   *resource.NewQuantity(n.Pods, resource.DecimalSI),
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: types.UID("node-" + n.Name), Labels: n.Labels},
		Status: v1.NodeStatus{
			Capacity: allocatable, Allocatable: allocatable,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
}

func v1Pod(p Pod) *v1.Pod {
	requests := v1.ResourceList{}
	if p.MilliCPU > 0 {
		requests[v1.ResourceCPU] = *resource.NewMilliQuantity(p.MilliCPU, resource.DecimalSI)
	}
	if p.Memory > 0 {
		requests[v1.ResourceMemory] = *resource.NewQuantity(p.Memory, resource.BinarySI)
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: types.UID(p.UID)},
		Spec: v1.PodSpec{
			NodeName:      p.NodeName,
			SchedulerName: v1.DefaultSchedulerName,
			Containers: []v1.Container{{
				Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: v1.ResourceRequirements{Requests: requests},
			}},
		},
	}
}

func schedulerProfile(plugins string) (schedulerapi.KubeSchedulerProfile, error) {
	cfg, err := latest.Default()
	if err != nil {
		return schedulerapi.KubeSchedulerProfile{}, err
	}
	prof := cfg.Profiles[0]
	if plugins == "default" {
		return prof, nil
	}
	// A comma-separated list (refimpl's plugins, which bench/kubernetes_peer.py reads from refimpl's default
	// framework), each with the default profile's weight.
	weights := map[string]int32{}
	for _, p := range prof.Plugins.MultiPoint.Enabled {
		weights[p.Name] = p.Weight
	}
	names := append([]string{QueueSort}, strings.Split(plugins, ",")...)
	enabled := make([]schedulerapi.Plugin, 0, len(names))
	for _, name := range names {
		if _, ok := weights[name]; !ok {
			return prof, fmt.Errorf("-plugins: %q is not a plugin of the default profile (give default, or a "+
				"comma-separated list of the default profile's plugins)", name)
		}
		enabled = append(enabled, schedulerapi.Plugin{Name: name, Weight: weights[name]})
	}
	prof.Plugins = &schedulerapi.Plugins{MultiPoint: schedulerapi.PluginSet{Enabled: enabled}}
	return prof, nil
}

// PluginNames lists the plugins a profile enables (MultiPoint), for the report.
func pluginNames(prof schedulerapi.KubeSchedulerProfile) []string {
	names := []string{}
	for _, p := range prof.Plugins.MultiPoint.Enabled {
		names = append(names, p.Name)
	}
	return names
}

func schedule(w Workload, plugins string, batching bool) (map[string]any, error) {
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{
		string(features.OpportunisticBatching): batching,
	}); err != nil {
		return nil, err
	}
	prof, err := schedulerProfile(plugins)
	if err != nil {
		return nil, err
	}
	objects := make([]kruntime.Object, 0, len(w.Nodes)+len(w.Pods))
	for _, n := range w.Nodes {
		objects = append(objects, v1Node(n))
	}
	for _, p := range w.Pods {
		objects = append(objects, v1Pod(p))
	}
	client := fake.NewSimpleClientset(objects...) // no managed fields: NewClientset's field manager would dominate the CPU time
	podsResource := v1.SchemeGroupVersion.WithResource("pods")
	var bound, seen atomic.Int64 // bindings written, and seen by the scheduler's pod informer
	done := make(chan struct{})
	total := int64(len(w.Pods))
	client.PrependReactor("create", "pods", func(action clienttesting.Action) (bool, kruntime.Object, error) {
		if action.GetSubresource() != "binding" {
			return false, nil, nil
		}
		binding := action.(clienttesting.CreateAction).GetObject().(*v1.Binding)
		obj, err := client.Tracker().Get(podsResource, binding.Namespace, binding.Name)
		if err != nil {
			return true, nil, err
		}
		// The fake clientset's watch channel holds 100 events and panics when full: wait (off the CPU) until the
		// informer has taken most of what was written.
		for bound.Load()-seen.Load() > 50 {
			time.Sleep(100 * time.Microsecond)
		}
		pod := obj.(*v1.Pod).DeepCopy()
		pod.Spec.NodeName = binding.Target.Name
		if err := client.Tracker().Update(podsResource, pod, binding.Namespace); err != nil {
			return true, nil, err
		}
		if bound.Add(1) == total {
			close(done)
		}
		return true, binding, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	informerFactory := scheduler.NewInformerFactory(client, 0)
	var recorders profile.RecorderFactory = func(string) events.EventRecorder { return &events.FakeRecorder{} }
	sched, err := scheduler.New(ctx, client, informerFactory, nil, recorders, scheduler.WithProfiles(prof))
	if err != nil {
		return nil, err
	}
	if _, err := informerFactory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(old, new any) {
			if old.(*v1.Pod).Spec.NodeName == "" && new.(*v1.Pod).Spec.NodeName != "" {
				seen.Add(1)
			}
		},
	}); err != nil {
		return nil, err
	}
	informerFactory.Start(ctx.Done())
	informerFactory.WaitForCacheSync(ctx.Done())
	for sched.Cache.NodeCount() < len(w.Nodes) {
		time.Sleep(time.Millisecond)
	}
	startedCPU, started := cpuSeconds(), time.Now()
	go sched.Run(ctx)
	select {
	case <-done:
	case <-time.After(30 * time.Minute):
		return nil, fmt.Errorf("only %d of %d pods bound in 30 minutes", bound.Load(), total)
	}
	elapsed, cpu := time.Since(started).Seconds(), cpuSeconds()-startedCPU
	return map[string]any{
		"mode": "schedule", "plugins": plugins, "plugin_names": pluginNames(prof), "batching": batching,
		"nodes": len(w.Nodes), "pods": len(w.Pods), "bound": bound.Load(), "seconds": elapsed, "cpu_seconds": cpu,
		"pods_per_second": float64(bound.Load()) / elapsed, "pods_per_cpu_second": float64(bound.Load()) / cpu,
	}, nil
}

func median(values []float64) float64 {
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	return sorted[len(sorted)/2]
}

func snapshot(w Workload, rounds int) (map[string]any, error) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the cache's cleanup loop returns before its first run
	c := internalcache.New(ctx, 0, nil)
	logger := klog.Background()
	for _, n := range w.Nodes {
		c.AddNode(logger, v1Node(n))
	}
	for _, p := range w.Pods {
		if p.NodeName == "" {
			return nil, fmt.Errorf("snapshot: pod %s has no node", p.Name)
		}
		if err := c.AddPod(logger, v1Pod(p)); err != nil {
			return nil, err
		}
	}
	timed := func(s *internalcache.Snapshot) float64 {
		started := time.Now()
		if err := c.UpdateSnapshot(logger, s); err != nil {
			panic(err)
		}
		return time.Since(started).Seconds()
	}
	full := []float64{}
	for i := 0; i < 7; i++ {
		full = append(full, timed(internalcache.NewEmptySnapshot()))
	}
	s := internalcache.NewEmptySnapshot()
	timed(s)
	one, none := []float64{}, []float64{}
	for i := 0; i < rounds; i++ {
		node := w.Nodes[(i*7919)%len(w.Nodes)]
		extra := v1Pod(Pod{Name: fmt.Sprintf("extra-%d", i), Namespace: "bench", UID: fmt.Sprintf("extra-%d", i),
			MilliCPU: 100, Memory: 500 << 20, NodeName: node.Name})
		if err := c.AddPod(logger, extra); err != nil {
			return nil, err
		}
		one = append(one, timed(s))
		if err := c.RemovePod(logger, extra); err != nil {
			return nil, err
		}
		timed(s)
		none = append(none, timed(s))
	}
	if s.NumNodes() != len(w.Nodes) {
		return nil, fmt.Errorf("snapshot has %d nodes, want %d", s.NumNodes(), len(w.Nodes))
	}
	return map[string]any{
		"mode": "snapshot", "nodes": len(w.Nodes), "pods": len(w.Pods), "full_seconds": median(full),
		"one_changed_seconds": median(one), "unchanged_seconds": median(none),
	}, nil
}

var _ framework.NodeInfo // the cache's node infos; imported so the build names the package it measures

func main() {
	workload := flag.String("workload", "", "the workload JSON file (bench/kubernetes_peer.py writes it)")
	mode := flag.String("mode", "schedule", "schedule or snapshot")
	plugins := flag.String("plugins", "default", "default (the default profile) or a comma-separated list of its plugins (refimpl's; PrioritySort is added)")
	batching := flag.Bool("batching", true, "the OpportunisticBatching feature gate (on by default in v1.35)")
	rounds := flag.Int("rounds", 2000, "snapshot: timed UpdateSnapshot calls per case")
	flag.Parse()
	runtime.GOMAXPROCS(1)
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	data, err := os.ReadFile(*workload)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubernetes-peer: %v\n", err)
		os.Exit(2)
	}
	var w Workload
	if err := json.Unmarshal(data, &w); err != nil {
		fmt.Fprintf(os.Stderr, "kubernetes-peer: %s is not a workload: %v\n", *workload, err)
		os.Exit(2)
	}
	var result map[string]any
	switch *mode {
	case "schedule":
		result, err = schedule(w, *plugins, *batching)
	case "snapshot":
		result, err = snapshot(w, *rounds)
	default:
		err = fmt.Errorf("-mode must be schedule or snapshot, got %q", *mode)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubernetes-peer: %v\n", err)
		os.Exit(1)
	}
	result["go"] = runtime.Version()
	result["gomaxprocs"] = runtime.GOMAXPROCS(0)
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}
