package main

// The arguments (the spec's objects as JSON, defaults left out: docs/contract/cache.md, "Argument types") and the
// observation the runner compares after every step (docs/contract/cache.md, "Observation").

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Pod is the spec's Pod; a field left out of the JSON keeps its zero value, except Namespace ("default").
type Pod struct {
	UID              string           `json:"uid"`
	Name             string           `json:"name"`
	Namespace        string           `json:"namespace"`
	NodeName         string           `json:"node_name"`
	Containers       []Container      `json:"containers"`
	InitContainers   []Container      `json:"init_containers"`
	Overhead         map[string]int64 `json:"overhead"`
	PodLevelRequests map[string]int64 `json:"pod_level_requests"`
	PodAffinity      *AffinityTerms   `json:"pod_affinity"`      // nil and empty differ
	PodAntiAffinity  *AffinityTerms   `json:"pod_anti_affinity"` // nil and empty differ
	PVCClaims        []string         `json:"pvc_claims"`
}

type Container struct {
	Name          string           `json:"name"`
	Requests      map[string]int64 `json:"requests"`
	Ports         []ContainerPort  `json:"ports"`
	Image         string           `json:"image"`
	RestartPolicy *string          `json:"restart_policy"`
}

type ContainerPort struct {
	ContainerPort int    `json:"container_port"`
	HostPort      int    `json:"host_port"`
	Protocol      string `json:"protocol"`
	HostIP        string `json:"host_ip"`
}

type AffinityTerms struct {
	Required  int `json:"required"`
	Preferred int `json:"preferred"`
}

// Node is the spec's Node, as far as the cache reads it.
type Node struct {
	Name        string            `json:"name"`
	Allocatable map[string]int64  `json:"allocatable"`
	Labels      map[string]string `json:"labels"`
	Images      []ContainerImage  `json:"images"`
}

type ContainerImage struct {
	Names     []string `json:"names"`
	SizeBytes int64    `json:"size_bytes"`
}

// UnmarshalJSON fills in the spec's default namespace.
func (p *Pod) UnmarshalJSON(data []byte) error {
	type plain Pod
	decoded := plain{Namespace: "default"}
	if err := json.Unmarshal(data, &decoded); err != nil {
		return err
	}
	*p = Pod(decoded)
	return nil
}

// stepArgs holds every operation's arguments; update_pod and update_node name theirs old and new, with types of
// their own, so those two are decoded from raw by pair.
type stepArgs struct {
	Pod  *Pod                       `json:"pod"`
	Node *Node                      `json:"node"`
	Now  int64                      `json:"now"`
	raw  map[string]json.RawMessage // every argument, undecoded
}

func decodeArgs(raw json.RawMessage) (stepArgs, error) {
	var args stepArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return args, err
	}
	return args, json.Unmarshal(raw, &args.raw)
}

func (a stepArgs) pair(target1, target2 any) error {
	if old, ok := a.raw["old"]; ok {
		if err := json.Unmarshal(old, target1); err != nil {
			return err
		}
	}
	return json.Unmarshal(a.raw["new"], target2)
}

// step applies one operation and answers with its result and the observation after it.
func (s *server) step(op string, raw json.RawMessage) response {
	args, err := decodeArgs(raw)
	if err != nil {
		return response{"status": "error", "kind": "BadArguments", "message": err.Error()}
	}
	var returned *NodeInfo
	switch op {
	case "assume_pod":
		err = s.cache.AssumePod(args.Pod)
	case "finish_binding":
		err = s.cache.FinishBinding(args.Pod, args.Now)
	case "forget_pod":
		err = s.cache.ForgetPod(args.Pod)
	case "add_pod":
		err = s.cache.AddPod(args.Pod)
	case "update_pod":
		var old, new Pod
		if err = args.pair(&old, &new); err == nil {
			err = s.cache.UpdatePod(&old, &new)
		}
	case "remove_pod":
		err = s.cache.RemovePod(args.Pod)
	case "add_node":
		returned = s.cache.AddNode(args.Node)
	case "update_node":
		var old *Node
		var new Node
		if err = args.pair(&old, &new); err == nil {
			returned, err = s.cache.UpdateNode(old, &new)
		}
	case "remove_node":
		err = s.cache.RemoveNode(args.Node)
	case "cleanup_assumed_pods":
		err = s.cache.CleanupAssumedPods(args.Now)
	case "update_metrics":
		s.cache.UpdateMetrics()
	case "update_snapshot":
		err = s.cache.UpdateSnapshot(s.snapshot)
	default:
		return response{"status": "error", "kind": "NotEnabled", "message": fmt.Sprintf("unknown operation %q", op)}
	}
	switch e := err.(type) {
	case nil:
		return response{"status": "ok", "observation": s.observe(returned)}
	case *Fatal:
		return response{"status": "fatal", "kind": e.Kind, "message": e.Message}
	case *CacheError:
		return response{"status": "error", "kind": e.Kind, "message": e.Message, "observation": s.observe(nil)}
	default:
		return response{"status": "error", "kind": "BadArguments", "message": err.Error()}
	}
}

// observe builds the full observation: the cache's dump, the assumed pods, recency, the snapshot, the gauge and
// what the step returned (a NodeInfo clone where the profile's add_node and update_node return one).
func (s *server) observe(returned *NodeInfo) map[string]any {
	c := s.cache
	nodes := map[string]any{}
	for name := range c.nodes {
		nodes[name] = nodeJSON(c.clone(name))
	}
	assumed := make([]string, 0, len(c.assumed))
	for uid := range c.assumed {
		assumed = append(assumed, uid)
	}
	sort.Strings(assumed)
	snapshotNodes := map[string]any{}
	for name, info := range s.snapshot.infos {
		snapshotNodes[name] = nodeJSON(info)
	}
	var ret any = "none"
	if returned != nil && c.profile.nodeOpsReturnNodeInfo {
		ret = nodeJSON(returned)
	}
	return map[string]any{
		"nodes":    nodes,
		"assumed":  assumed,
		"recency":  c.recency(),
		"snapshot": map[string]any{"list": nonNil(s.snapshot.list), "affinity": nonNil(s.snapshot.affinity), "anti_affinity": nonNil(s.snapshot.antiAffinity), "used_pvcs": sortedKeys(s.snapshot.usedPVCs), "nodes": snapshotNodes},
		"metrics":  map[string]int{"assumed_pods": c.metrics[0], "pods": c.metrics[1], "nodes": c.metrics[2]},
		"returned": ret,
	}
}

func nodeJSON(n *NodeInfo) map[string]any {
	name := ""
	if n.node != nil {
		name = n.node.Name
	}
	ports := make([][3]any, 0, len(n.usedPorts))
	for p := range n.usedPorts {
		ports = append(ports, [3]any{p.ip, p.protocol, p.port})
	}
	sort.Slice(ports, func(i, j int) bool {
		a, b := ports[i], ports[j]
		if a[0] != b[0] {
			return a[0].(string) < b[0].(string)
		}
		if a[1] != b[1] {
			return a[1].(string) < b[1].(string)
		}
		return a[2].(int) < b[2].(int)
	})
	images := map[string]any{}
	for image, summary := range n.images {
		images[image] = map[string]int64{"size": summary.size, "num_nodes": int64(summary.numNodes)}
	}
	pvcs := map[string]int{}
	for key, count := range n.pvcRefCounts {
		pvcs[key] = count
	}
	return map[string]any{
		"node":                             name,
		"pods":                             uids(n.pods),
		"requested":                        resourceJSON(n.requested, false),
		"non_zero_requested":               map[string]int64{"milli_cpu": n.nonZeroRequested.milliCPU, "memory": n.nonZeroRequested.memory},
		"allocatable":                      resourceJSON(n.allocatable, true),
		"used_ports":                       ports,
		"pvc_ref_counts":                   pvcs,
		"pods_with_affinity":               uids(n.podsWithAffinity),
		"pods_with_required_anti_affinity": uids(n.podsWithRequiredAntiAffinity),
		"image_states":                     images,
	}
}

func resourceJSON(r Resource, withPods bool) map[string]any {
	scalars := map[string]int64{}
	for name, quantity := range r.scalars {
		if quantity != 0 {
			scalars[name] = quantity
		}
	}
	out := map[string]any{"milli_cpu": r.milliCPU, "memory": r.memory, "ephemeral_storage": r.ephemeralStorage, "scalars": scalars}
	if withPods {
		out["pods"] = r.allowedPods
	}
	return out
}

func uids(pods []*Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.UID)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
