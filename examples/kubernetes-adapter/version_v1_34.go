//go:build k8s_v1_34

package main

// Built against k8s.io/kubernetes v1.34.0: go build -tags k8s_v1_34 -modfile go.v1.34.mod (see the Makefile).

import (
	"reflect"
	"unsafe"

	apidispatcher "k8s.io/kubernetes/pkg/scheduler/backend/api_dispatcher"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

const (
	kubernetesVersion = "v1.34.0"
	profile           = "v1.34"
)

// NominatingInfo is still in k8s.io/kubernetes/pkg/scheduler/framework in v1.34.
type (
	nominatingInfo = framework.NominatingInfo
	nominatingMode = framework.NominatingMode
)

const (
	modeNoop     = framework.ModeNoop
	modeOverride = framework.ModeOverride
)

//go:linkname limiterAcquire k8s.io/kubernetes/pkg/scheduler/backend/api_dispatcher.(*goroutinesLimiter).acquire
func limiterAcquire(l unsafe.Pointer) bool

//go:linkname limiterRelease k8s.io/kubernetes/pkg/scheduler/backend/api_dispatcher.(*goroutinesLimiter).release
func limiterRelease(l unsafe.Pointer)

// limiter is v1.34.0's goroutinesLimiter: Run acquires one of `parallelization` goroutines before each pop, and
// the call's goroutine releases it when the call is finished.
type limiter struct {
	pointer unsafe.Pointer
	value   reflect.Value
}

func newLimiter(d *apidispatcher.APIDispatcher) limiter {
	f := field(reflect.ValueOf(d).Elem(), "goroutinesLimiter")
	return limiter{pointer: f.UnsafePointer(), value: pointee(f)}
}

// acquire is called only when available() is true, so it never blocks.
func (l limiter) acquire() { limiterAcquire(l.pointer) }
func (l limiter) release() { limiterRelease(l.pointer) }

func (l limiter) available() bool {
	return field(l.value, "goroutines").Int() < field(l.value, "maxGoroutines").Int()
}
