//go:build k8s_v1_34 || k8s_v1_37

package main

// The cycle area's PostFilter is wired for v1.35 only (cycle_preemption_v1_35.go); these releases' builds refuse a
// reset with "preemption" (main.go) and never nominate.

import v1 "k8s.io/api/core/v1"

// preemptionSupported: this build does not run PostFilter.
const preemptionSupported = false

func (a *cycleArea) syncAPIServer()               {}
func (a *cycleArea) nominateOnAdd(pod *v1.Pod)    {}
func (a *cycleArea) forgetNomination(pod *v1.Pod) {}
func (a *cycleArea) clearNomination(uid string)   {}
func (a *cycleArea) nominated() map[string]any    { return map[string]any{} }
func (a *cycleArea) postFilter(pod *v1.Pod) error { return nil }
