package main

// The cache (spec/cache/cache.py: Kubernetes' cacheImpl), its NodeInfos (spec/cache/nodeinfo.py), node tree
// (spec/cache/nodetree.py), image states (spec/cache/imagestates.py) and snapshot (spec/cache/snapshot.py), written
// from the spec. Errors are values: a *CacheError is an error result (the observation still follows, with whatever
// the call changed before it failed), a *Fatal is where Kubernetes' process exits.

import (
	"fmt"
	"sort"
)

type profile struct {
	expiry                bool // assumed pods expire: finish_binding and cleanup_assumed_pods exist
	forgetUnknownIsError  bool // forget_pod of a pod the cache does not know is PodNotAssumed (before v1.35)
	nodeOpsReturnNodeInfo bool // add_node and update_node return a NodeInfo clone (up to v1.36)
	incrementalPVC        bool // v1.37: the snapshot's claim counts follow a delta (refreshPVCRefCountsDelta)
}

type CacheError struct{ Kind, Message string }

func (e *CacheError) Error() string { return e.Kind + ": " + e.Message }

type Fatal struct{ Kind, Message string }

func (e *Fatal) Error() string { return e.Kind + ": " + e.Message }

func cacheError(kind, format string, args ...any) error {
	return &CacheError{kind, fmt.Sprintf(format, args...)}
}

// NodeInfo is framework.NodeInfo. A nil node is a placeholder (pods before their node) or a ghost (node removed,
// pods remain).
type NodeInfo struct {
	node                         *Node
	pods                         []*Pod
	podsWithAffinity             []*Pod
	podsWithRequiredAntiAffinity []*Pod
	usedPorts                    map[hostPort]bool
	requested, nonZeroRequested  Resource
	allocatable                  Resource
	pvcRefCounts                 map[string]int
	generation                   int64
	images                       map[string]imageSummary // filled in clones only
}

type imageSummary struct {
	size     int64
	numNodes int
}

func newNodeInfo(generation int64) *NodeInfo {
	return &NodeInfo{usedPorts: map[hostPort]bool{}, pvcRefCounts: map[string]int{}, generation: generation,
		requested: Resource{scalars: map[string]int64{}}, nonZeroRequested: Resource{scalars: map[string]int64{}},
		allocatable: Resource{scalars: map[string]int64{}}}
}

func withAffinity(p *Pod) bool { return p.PodAffinity != nil || p.PodAntiAffinity != nil }
func withRequiredAntiAffinity(p *Pod) bool {
	return p.PodAntiAffinity != nil && p.PodAntiAffinity.Required > 0
}

func (n *NodeInfo) charge(p *Pod, sign int64) {
	r, nonZeroCPU, nonZeroMemory := podResource(p)
	n.requested.milliCPU += sign * r.milliCPU
	n.requested.memory += sign * r.memory
	n.requested.ephemeralStorage += sign * r.ephemeralStorage
	for name, quantity := range r.scalars {
		n.requested.scalars[name] += sign * quantity
	}
	n.nonZeroRequested.milliCPU += sign * nonZeroCPU
	n.nonZeroRequested.memory += sign * nonZeroMemory
	for _, port := range hostPorts(p) {
		if sign > 0 {
			n.usedPorts[port] = true
		} else {
			delete(n.usedPorts, port)
		}
	}
	for _, claim := range p.PVCClaims {
		key := p.Namespace + "/" + claim
		n.pvcRefCounts[key] += int(sign)
		if n.pvcRefCounts[key] <= 0 {
			delete(n.pvcRefCounts, key)
		}
	}
}

func (n *NodeInfo) addPod(p *Pod, generation int64) {
	n.pods = append(n.pods, p)
	if withAffinity(p) {
		n.podsWithAffinity = append(n.podsWithAffinity, p)
	}
	if withRequiredAntiAffinity(p) {
		n.podsWithRequiredAntiAffinity = append(n.podsWithRequiredAntiAffinity, p)
	}
	n.charge(p, +1)
	n.generation = generation
}

// removeFromSlice drops the first pod with the uid by moving the last pod into its slot.
func removeFromSlice(pods []*Pod, uid string) ([]*Pod, *Pod) {
	for i, p := range pods {
		if p.UID == uid {
			last := len(pods) - 1
			pods[i] = pods[last]
			return pods[:last], p
		}
	}
	return pods, nil
}

// removePod prunes the affinity lists by the argument pod's spec first (so even a failure changes them), then
// releases what the stored pod was charged.
func (n *NodeInfo) removePod(p *Pod, generation int64) error {
	if withAffinity(p) {
		n.podsWithAffinity, _ = removeFromSlice(n.podsWithAffinity, p.UID)
	}
	if withRequiredAntiAffinity(p) {
		n.podsWithRequiredAntiAffinity, _ = removeFromSlice(n.podsWithRequiredAntiAffinity, p.UID)
	}
	var stored *Pod
	n.pods, stored = removeFromSlice(n.pods, p.UID)
	if stored == nil {
		if n.node == nil {
			return &Fatal{"NilNodeDereference", "NodeInfo.RemovePod on a NodeInfo without a node"}
		}
		return cacheError("PodNotInNodeInfo", "no corresponding pod %s in pods of node %s", p.Name, n.node.Name)
	}
	n.charge(stored, -1)
	n.generation = generation
	return nil
}

// podState is an assumed or added pod: its cached object and, once its binding finished, its deadline.
type podState struct {
	pod             *Pod
	bindingFinished bool
	deadline        *int64
}

type imageState struct {
	size   int64
	nodes  map[string]bool
	serial int
}

type imageRef struct {
	serial int
	size   int64
}

// Cache is cacheImpl.
type Cache struct {
	profile    profile
	ttl        int64
	podStates  map[string]*podState
	assumed    map[string]bool
	nodes      map[string]*NodeInfo
	tree       nodeTree
	images     map[string]*imageState
	imageRefs  map[string]map[string]imageRef // per NodeInfo name: its pointers into images
	generation int64
	nextSerial int
	metrics    [3]int         // scheduler_cache_size as last published: assumed pods, pods, nodes
	pvcDelta   map[string]int // v1.37's pvcRefCountsDelta: the change of the claims' counts since UpdateSnapshot
}

func NewCache(p profile, ttl int64) *Cache {
	return &Cache{profile: p, ttl: ttl, podStates: map[string]*podState{}, assumed: map[string]bool{},
		nodes: map[string]*NodeInfo{}, images: map[string]*imageState{}, imageRefs: map[string]map[string]imageRef{},
		pvcDelta: map[string]int{}}
}

// refreshPVCDelta adds the change of a NodeInfo's claim counts, from before to after, to the delta (v1.37).
func (c *Cache) refreshPVCDelta(before, after map[string]int) {
	if !c.profile.incrementalPVC {
		return
	}
	for key, n := range before {
		c.pvcDelta[key] -= n
	}
	for key, n := range after {
		c.pvcDelta[key] += n
	}
}

func copyCounts(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (c *Cache) nextGeneration() int64 {
	c.generation++
	return c.generation
}

func podKey(p *Pod) (string, error) {
	if p.UID == "" {
		return "", cacheError("InvalidPodKey", "cannot get cache key for pod with empty UID")
	}
	return p.UID, nil
}

// recency lists the NodeInfo names by generation, newest first (Kubernetes' doubly linked list).
func (c *Cache) recency() []string {
	names := sortedKeys(c.nodes)
	sort.SliceStable(names, func(i, j int) bool { return c.nodes[names[i]].generation > c.nodes[names[j]].generation })
	return names
}

func (c *Cache) addPodTo(p *Pod, assume bool) error {
	key, err := podKey(p)
	if err != nil {
		return err
	}
	info, ok := c.nodes[p.NodeName]
	if !ok {
		info = newNodeInfo(c.nextGeneration())
		c.nodes[p.NodeName] = info
	}
	before := copyCounts(info.pvcRefCounts)
	info.addPod(p, c.nextGeneration())
	c.refreshPVCDelta(before, info.pvcRefCounts)
	c.podStates[key] = &podState{pod: p}
	if assume {
		c.assumed[key] = true
	}
	return nil
}

func (c *Cache) removePodFrom(p *Pod) error {
	key, err := podKey(p)
	if err != nil {
		return err
	}
	if info, ok := c.nodes[p.NodeName]; ok {
		before := copyCounts(info.pvcRefCounts)
		if err := info.removePod(p, c.generation+1); err != nil {
			return err
		}
		c.generation++
		c.refreshPVCDelta(before, info.pvcRefCounts)
		if len(info.pods) == 0 && info.node == nil {
			c.deleteNodeInfo(p.NodeName)
		}
	}
	delete(c.podStates, key)
	delete(c.assumed, key)
	return nil
}

func (c *Cache) deleteNodeInfo(name string) {
	delete(c.nodes, name)
	delete(c.imageRefs, name)
}

func (c *Cache) updatePodIn(old, new *Pod) error {
	if err := c.removePodFrom(old); err != nil {
		return err
	}
	return c.addPodTo(new, false)
}

func (c *Cache) AssumePod(p *Pod) error {
	key, err := podKey(p)
	if err != nil {
		return err
	}
	if _, ok := c.podStates[key]; ok {
		return cacheError("PodAlreadyInCache", "pod %s is in the cache, so can't be assumed", key)
	}
	return c.addPodTo(p, true)
}

func (c *Cache) FinishBinding(p *Pod, now int64) error {
	if !c.profile.expiry {
		return cacheError("UnsupportedOperation", "FinishBinding does not exist in this profile")
	}
	key, err := podKey(p)
	if err != nil {
		return err
	}
	state, ok := c.podStates[key]
	if !ok || !c.assumed[key] {
		return nil
	}
	state.bindingFinished, state.deadline = true, nil
	if c.ttl != 0 {
		deadline := now + c.ttl
		state.deadline = &deadline
	}
	return nil
}

func (c *Cache) ForgetPod(p *Pod) error {
	key, err := podKey(p)
	if err != nil {
		return err
	}
	state, ok := c.podStates[key]
	if !ok {
		if c.profile.forgetUnknownIsError {
			return cacheError("PodNotAssumed", "pod %s wasn't assumed so cannot be forgotten", key)
		}
		return nil
	}
	if state.pod.NodeName != p.NodeName {
		return cacheError("PodAssumedOnOtherNode", "pod %s was assumed on %s but assigned to %s", key, p.NodeName, state.pod.NodeName)
	}
	if !c.assumed[key] {
		return cacheError("PodNotAssumed", "pod %s wasn't assumed so cannot be forgotten", key)
	}
	return c.removePodFrom(p)
}

// AddPod confirms an assumed pod (moving it to the node the new object names) or adds an unknown one; errors
// while confirming are only logged by Kubernetes, so they are not returned, but a fatal one still ends the process.
func (c *Cache) AddPod(p *Pod) error {
	key, err := podKey(p)
	if err != nil {
		return err
	}
	state, ok := c.podStates[key]
	if ok && c.assumed[key] {
		if err := c.updatePodIn(state.pod, p); err != nil {
			if _, fatal := err.(*Fatal); fatal {
				return err
			}
		}
		return nil
	}
	if !ok {
		return c.addPodTo(p, false)
	}
	return cacheError("PodAlreadyAdded", "pod %s was already in added state", key)
}

func (c *Cache) UpdatePod(old, new *Pod) error {
	key, err := podKey(old)
	if err != nil {
		return err
	}
	state, ok := c.podStates[key]
	if !ok {
		return cacheError("PodNotAdded", "pod %s is not added to scheduler cache, so cannot be updated", key)
	}
	if c.assumed[key] {
		return cacheError("AssumedPodUpdate", "assumed pod %s should not be updated", key)
	}
	if state.pod.NodeName != new.NodeName {
		return &Fatal{"PodUpdatedOnOtherNode", "pod updated on a different node than previously added to"}
	}
	return c.updatePodIn(old, new)
}

func (c *Cache) RemovePod(p *Pod) error {
	key, err := podKey(p)
	if err != nil {
		return err
	}
	state, ok := c.podStates[key]
	if !ok {
		return cacheError("PodNotFoundForRemoval", "pod %s is not found in scheduler cache, so cannot be removed from it", key)
	}
	if state.pod.NodeName != p.NodeName && p.NodeName != "" {
		return &Fatal{"PodRemovedFromOtherNode", "pod removed from a different node than it was added to"}
	}
	return c.removePodFrom(state.pod)
}

func (c *Cache) addNodeImageStates(n *Node) map[string]imageRef {
	refs := map[string]imageRef{}
	for _, image := range n.Images {
		for _, name := range image.Names {
			state, ok := c.images[name]
			if !ok {
				state = &imageState{size: image.SizeBytes, nodes: map[string]bool{}, serial: c.nextSerial}
				c.nextSerial++
				c.images[name] = state
			}
			state.nodes[n.Name] = true
			if _, seen := refs[name]; !seen {
				refs[name] = imageRef{state.serial, state.size}
			}
		}
	}
	return refs
}

func (c *Cache) removeNodeImageStates(n *Node) {
	if n == nil {
		return
	}
	for _, image := range n.Images {
		for _, name := range image.Names {
			if state, ok := c.images[name]; ok {
				delete(state.nodes, n.Name)
				if len(state.nodes) == 0 {
					delete(c.images, name)
				}
			}
		}
	}
}

func (c *Cache) setNode(n *Node) *NodeInfo {
	c.imageRefs[n.Name] = c.addNodeImageStates(n)
	info := c.nodes[n.Name]
	info.node, info.allocatable, info.generation = n, resourceFromList(n.Allocatable), c.nextGeneration()
	return c.clone(n.Name)
}

func (c *Cache) nodeInfoFor(name string) bool {
	if _, ok := c.nodes[name]; ok {
		return false
	}
	c.nodes[name] = newNodeInfo(c.nextGeneration())
	return true
}

func (c *Cache) AddNode(n *Node) *NodeInfo {
	if !c.nodeInfoFor(n.Name) {
		c.removeNodeImageStates(c.nodes[n.Name].node)
	}
	c.tree.add(n)
	return c.setNode(n)
}

func (c *Cache) UpdateNode(old, new *Node) (*NodeInfo, error) {
	if c.nodeInfoFor(new.Name) {
		c.tree.add(new)
	} else {
		c.removeNodeImageStates(c.nodes[new.Name].node)
	}
	if err := c.tree.update(old, new); err != nil {
		return nil, err
	}
	return c.setNode(new), nil
}

func (c *Cache) RemoveNode(n *Node) error {
	info, ok := c.nodes[n.Name]
	if !ok {
		return cacheError("NodeNotFound", "node %s is not found", n.Name)
	}
	c.refreshPVCDelta(info.pvcRefCounts, nil) // v1.37 subtracts the node's claims; its pods stay on the ghost
	info.node, info.generation = nil, c.nextGeneration()
	if len(info.pods) == 0 {
		c.deleteNodeInfo(n.Name)
	}
	if err := c.tree.remove(n); err != nil {
		return err
	}
	c.removeNodeImageStates(n)
	return nil
}

func (c *Cache) UpdateMetrics() {
	c.metrics = [3]int{len(c.assumed), len(c.podStates), len(c.nodes)}
}

// CleanupAssumedPods expires, in key order, each assumed pod whose binding finished more than the TTL ago.
func (c *Cache) CleanupAssumedPods(now int64) error {
	if !c.profile.expiry {
		return cacheError("UnsupportedOperation", "cleanupAssumedPods does not exist in this profile")
	}
	for _, key := range sortedKeys(c.assumed) {
		state, ok := c.podStates[key]
		if !ok {
			return &Fatal{"AssumedPodWithoutState", "key found in assumed set but not in podStates"}
		}
		if state.bindingFinished && c.ttl != 0 && state.deadline != nil && now > *state.deadline {
			if err := c.removePodFrom(state.pod); err != nil {
				if _, fatal := err.(*Fatal); fatal {
					return err
				}
			}
		}
	}
	c.UpdateMetrics()
	return nil
}

// clone is NodeInfo.SnapshotConcrete: a copy with its image summaries materialised (a summary no longer in the
// cache's map under the same serial has no nodes).
func (c *Cache) clone(name string) *NodeInfo {
	n := c.nodes[name]
	out := *n
	out.pods = append([]*Pod{}, n.pods...)
	out.podsWithAffinity = append([]*Pod{}, n.podsWithAffinity...)
	out.podsWithRequiredAntiAffinity = append([]*Pod{}, n.podsWithRequiredAntiAffinity...)
	out.usedPorts = map[hostPort]bool{}
	for k := range n.usedPorts {
		out.usedPorts[k] = true
	}
	out.pvcRefCounts = map[string]int{}
	for k, v := range n.pvcRefCounts {
		out.pvcRefCounts[k] = v
	}
	out.requested.scalars = copyScalars(n.requested.scalars)
	out.nonZeroRequested.scalars = copyScalars(n.nonZeroRequested.scalars)
	out.allocatable.scalars = copyScalars(n.allocatable.scalars)
	out.images = map[string]imageSummary{}
	for image, ref := range c.imageRefs[name] {
		count := 0
		if state, ok := c.images[image]; ok && state.serial == ref.serial {
			count = len(state.nodes)
		}
		out.images[image] = imageSummary{ref.size, count}
	}
	return &out
}

func copyScalars(m map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		out[k] = v
	}
	return out
}
