//go:build k8s_v1_37

package main

// The cycle area's PostFilter is wired for v1.34 to v1.36 (cycle_preemption_v1_35.go); v1.37's build refuses a
// reset with "preemption" (main.go) and never nominates.

import v1 "k8s.io/api/core/v1"

// preemptionSupported: this build does not run PostFilter.
const preemptionSupported = false

func (a *cycleArea) syncAPIServer()               {}
func (a *cycleArea) nominateOnAdd(pod *v1.Pod)    {}
func (a *cycleArea) forgetNomination(pod *v1.Pod) {}
func (a *cycleArea) clearNomination(uid string)   {}
func (a *cycleArea) nominated() map[string]any    { return map[string]any{} }
func (a *cycleArea) postFilter(pod *v1.Pod) error { return nil }
