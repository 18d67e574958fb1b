package main

// The kubelet's pod admission (cycle_area.go's admit_pod): Kubernetes' own handlers, as the kubelet wires them
// (pkg/kubelet/kubelet.go: lifecycle.NewPredicateAdmitHandler(kl.getNodeAnyWay, criticalPodAdmissionHandler,
// kl.containerManager.UpdatePluginResources); allocation manager's canAdmitPod hands it the pod and the other
// admitted pods).

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"k8s.io/kubernetes/pkg/kubelet/preemption"
	schedulerframework "k8s.io/kubernetes/pkg/scheduler/framework"
)

// killFunc is eviction.KillPodFunc: the kubelet's pod killer, given the status update to write.
type killFunc = func(pod *v1.Pod, isEvicted bool, gracePeriodOverride *int64, statusFn func(*v1.PodStatus)) error

// kubeletAdmit runs the node's kubelet admission of pod against the running pods.
func kubeletAdmit(node *v1.Node, pod *v1.Pod, running []*v1.Pod, kill killFunc) lifecycle.PodAdmitResult {
	getNode := kubeletNodeGetter(node)
	noPluginResources := func(*schedulerframework.NodeInfo, *lifecycle.PodAdmitAttributes) error { return nil }
	activePods := func() []*v1.Pod { return running }
	critical := preemption.NewCriticalPodAdmissionHandler(activePods, kill, record.NewFakeRecorder(100))
	handler := lifecycle.NewPredicateAdmitHandler(getNode, critical, noPluginResources)
	return admit(handler, &lifecycle.PodAdmitAttributes{Pod: pod, OtherPods: running})
}
