package main

import (
	"encoding/json"
	"testing"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// TestSchedulerCacheLoopParked: a cycle area's scheduler (scheduler.New, whose own cache has a run loop every
// second) must not overwrite the scheduler_cache_size gauge its cache area published. Without parkCache the loop
// publishes the empty cache's 0 nodes within about a second, and this test fails.
func TestSchedulerCacheLoopParked(t *testing.T) {
	metrics.Register() // as main does: the gauge exists once registered (Register is idempotent)
	a, err := newCycleArea(klog.Background(), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer a.shutdown()
	node := json.RawMessage(`{"node": {"name": "n1", "allocatable": {"cpu": 1000, "memory": 1073741824, "pods": 10}}}`)
	if _, err := a.cache.apply("add_node", node); err != nil {
		t.Fatal(err)
	}
	if _, err := a.cache.apply("update_metrics", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(2500 * time.Millisecond); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if got := gauge("nodes"); got != 1 {
			t.Fatalf("scheduler_cache_size{type=nodes} = %d, want 1: the scheduler's own cache loop published", got)
		}
	}
}
