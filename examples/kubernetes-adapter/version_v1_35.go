//go:build !k8s_v1_34

package main

// Built against k8s.io/kubernetes v1.35.0 (go.mod), the default.

import (
	fwk "k8s.io/kube-scheduler/framework"
	apidispatcher "k8s.io/kubernetes/pkg/scheduler/backend/api_dispatcher"
)

const (
	kubernetesVersion = "v1.35.0"
	// profile is the spec's version profile (spec/versions.py) whose behaviour this build is.
	profile = "v1.35"
)

// NominatingInfo moved to k8s.io/kube-scheduler/framework in v1.35.
type (
	nominatingInfo = fwk.NominatingInfo
	nominatingMode = fwk.NominatingMode
)

const (
	modeNoop     = fwk.ModeNoop
	modeOverride = fwk.ModeOverride
)

// limiter: v1.35.0's Run pops without a goroutine limit (PR #134154 removed the limiter from Run; the type is
// still in the package, unused).
type limiter struct{}

func newLimiter(*apidispatcher.APIDispatcher) limiter { return limiter{} }
func (limiter) acquire()                              {}
func (limiter) release()                              {}
func (limiter) available() bool                       { return true }
