//go:build k8s_v1_34 || k8s_v1_36 || k8s_v1_37

package main

// The cycle area is driven on Kubernetes v1.35 only so far (cycle_area.go): findNodesThatFitPod's results and
// scheduler.New's arguments differ between releases, and the other releases' linked signatures are not yet
// written. These builds do not announce the area in their hello, so `ksspec conform` reports the cycle vectors as
// not applicable to them.

import (
	"encoding/json"
	"errors"
	"time"

	"k8s.io/klog/v2"
)

var cycleAreas []string

type cycleArea struct{}

func newCycleArea(klog.Logger, time.Duration) (*cycleArea, error) {
	return nil, errors.New("the cycle area is not yet enabled for Kubernetes " + kubernetesVersion)
}

func (*cycleArea) shutdown() {}

func (*cycleArea) step(string, json.RawMessage) response {
	return response{"type": "failure", "message": "the cycle area is not yet enabled for Kubernetes " + kubernetesVersion}
}
