package main

// Parking the cache scheduler.New builds. scheduler.New makes a cache of its own (internalcache.New), whose run
// loop (cacheImpl.run: wait.Until every second, cleanupAssumedPods up to v1.35, updateMetrics from v1.36) calls
// updateMetrics on it. The cycle area replaces that cache by its own (a.cache, built without the loop, so that
// expiry happens at the vector's instants), but the loop goes on, and the gauge it writes, scheduler_cache_size
// (metrics.CacheSize), is process-global: every second the empty cache published 0 nodes, 0 pods and 0 assumed pods
// over the values the cycle area's cache had published, and a step that read the gauge just after failed
// ("metrics.nodes: expected 1, got 0", random.cycle.ttl.seed2.v1_35, once in eight runs at a load of 16).

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
)

// parkCache stops the run loop of a cache nobody uses from publishing again: it takes the cache's mutex (the
// unexported cacheImpl.mu) and never releases it. In every release the loop's function takes that mutex before it
// writes the gauge (cleanupAssumedPods' Lock, updateMetrics' RLock), so once parkCache returns, a write in progress
// has finished and no other starts; the loop's goroutine stays blocked until the process exits (one per scheduler
// built, a few kilobytes). It fails if the cache is not a *cacheImpl with a sync.RWMutex field mu.
func parkCache(c cache.Cache) error {
	v := reflect.ValueOf(c)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("parkCache: %T is not a pointer to a struct", c)
	}
	field := v.Elem().FieldByName("mu")
	if !field.IsValid() || field.Type() != reflect.TypeOf(sync.RWMutex{}) {
		return fmt.Errorf("parkCache: %T has no sync.RWMutex field mu", c)
	}
	(*sync.RWMutex)(unsafe.Pointer(field.UnsafeAddr())).Lock()
	return nil
}
