package main

// What a pod requests (spec/resources.py: Kubernetes' PodRequests and the scheduler's non-zero defaults) and how a
// resource list becomes the scheduler's Resource.

import (
	"regexp"
	"strings"
)

const (
	defaultMilliCPURequest = 100               // schedutil.DefaultMilliCPURequest
	defaultMemoryRequest   = 200 * 1024 * 1024 // schedutil.DefaultMemoryRequest
)

// Resource is framework.Resource: fixed fields and the scalar (extended, hugepages, ...) resources.
type Resource struct {
	milliCPU, memory, ephemeralStorage, allowedPods int64
	scalars                                         map[string]int64
}

var qualifiedName = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)

func isScalarResourceName(name string) bool {
	native := !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/")
	extended := !native && !strings.HasPrefix(name, "requests.") && qualifiedName.MatchString("requests."+name)
	return extended || strings.HasPrefix(name, "hugepages-") || strings.Contains(name, "kubernetes.io/") ||
		strings.HasPrefix(name, "attachable-volumes-")
}

func resourceFromList(list map[string]int64) Resource {
	r := Resource{scalars: map[string]int64{}}
	for name, quantity := range list {
		switch {
		case name == "cpu":
			r.milliCPU += quantity
		case name == "memory":
			r.memory += quantity
		case name == "pods":
			r.allowedPods += quantity
		case name == "ephemeral-storage":
			r.ephemeralStorage += quantity
		case isScalarResourceName(name):
			r.scalars[name] += quantity
		}
	}
	return r
}

func addLists(a, b map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] += v
	}
	return out
}

func maxLists(a, b map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if old, ok := out[k]; !ok || v > old {
			out[k] = v
		}
	}
	return out
}

func containerRequests(c Container, nonMissing map[string]int64) map[string]int64 {
	if len(nonMissing) == 0 {
		return c.Requests
	}
	out := map[string]int64{}
	for k, v := range c.Requests {
		out[k] = v
	}
	for k, v := range nonMissing {
		if _, ok := c.Requests[k]; !ok {
			out[k] = v
		}
	}
	return out
}

// aggregateContainerRequests: regular containers summed, sidecars (restartable init containers) added to the sum,
// and the element-wise maximum with each init container's peak (its requests plus the sidecars started before it).
func aggregateContainerRequests(p *Pod, nonMissing map[string]int64) map[string]int64 {
	requests := map[string]int64{}
	for _, c := range p.Containers {
		requests = addLists(requests, containerRequests(c, nonMissing))
	}
	sidecars, initPeak := map[string]int64{}, map[string]int64{}
	for _, c := range p.InitContainers {
		own := containerRequests(c, nonMissing)
		var use map[string]int64
		if c.RestartPolicy != nil && *c.RestartPolicy == "Always" {
			requests = addLists(requests, own)
			sidecars = addLists(sidecars, own)
			use = sidecars
		} else {
			use = addLists(own, sidecars)
		}
		initPeak = maxLists(initPeak, use)
	}
	return maxLists(requests, initPeak)
}

func isPodLevelResource(name string) bool {
	return name == "cpu" || name == "memory" || strings.HasPrefix(name, "hugepages-")
}

func podLevelSet(p *Pod) bool {
	for name := range p.PodLevelRequests {
		if isPodLevelResource(name) {
			return true
		}
	}
	return false
}

// podRequests is PodRequests with the PodLevelResources gate on (every profile has it on).
func podRequests(p *Pod, nonMissing map[string]int64) map[string]int64 {
	requests := aggregateContainerRequests(p, nonMissing)
	if podLevelSet(p) {
		for name, quantity := range p.PodLevelRequests {
			if isPodLevelResource(name) {
				requests[name] = quantity
			}
		}
	}
	return addLists(requests, p.Overhead)
}

// podResource is PodInfo.CalculateResource: the requests charged, and the non-zero cpu and memory.
func podResource(p *Pod) (Resource, int64, int64) {
	requests := podRequests(p, nil)
	nonMissing := map[string]int64{"cpu": defaultMilliCPURequest, "memory": defaultMemoryRequest}
	if podLevelSet(p) {
		for name := range requests {
			delete(nonMissing, name)
		}
	}
	nonZero := requests
	if len(nonMissing) > 0 {
		nonZero = podRequests(p, nonMissing)
	}
	return resourceFromList(requests), nonZero["cpu"], nonZero["memory"]
}

type hostPort struct {
	ip, protocol string
	port         int
}

// hostPorts: the host ports of sidecars, then containers, sanitised (0.0.0.0 and TCP when empty).
func hostPorts(p *Pod) []hostPort {
	var out []hostPort
	add := func(c Container) {
		for _, port := range c.Ports {
			if port.HostPort > 0 {
				ip, protocol := port.HostIP, port.Protocol
				if ip == "" {
					ip = "0.0.0.0"
				}
				if protocol == "" {
					protocol = "TCP"
				}
				out = append(out, hostPort{ip, protocol, port.HostPort})
			}
		}
	}
	for _, c := range p.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == "Always" {
			add(c)
		}
	}
	for _, c := range p.Containers {
		add(c)
	}
	return out
}
