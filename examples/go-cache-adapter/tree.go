package main

// The node tree (spec/cache/nodetree.py: Kubernetes' nodeTree) and the snapshot (spec/cache/snapshot.py:
// Snapshot and cacheImpl.UpdateSnapshot).

import "fmt"

type zone struct {
	key   string
	names []string
}

// nodeTree holds the live node names by zone, zones in the order they first appeared.
type nodeTree struct{ zones []zone }

func zoneKey(n *Node) string {
	pick := func(beta, ga string) string {
		if v, ok := n.Labels[beta]; ok {
			return v
		}
		return n.Labels[ga]
	}
	z := pick("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone")
	r := pick("failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region")
	if r == "" && z == "" {
		return ""
	}
	return r + ":\x00:" + z
}

func (t *nodeTree) size() int {
	total := 0
	for _, z := range t.zones {
		total += len(z.names)
	}
	return total
}

func (t *nodeTree) add(n *Node) {
	key := zoneKey(n)
	for i, z := range t.zones {
		if z.key == key {
			for _, name := range z.names {
				if name == n.Name {
					return
				}
			}
			t.zones[i].names = append(z.names, n.Name)
			return
		}
	}
	t.zones = append(t.zones, zone{key, []string{n.Name}})
}

func (t *nodeTree) remove(n *Node) error {
	key := zoneKey(n)
	for i, z := range t.zones {
		if z.key != key {
			continue
		}
		for j, name := range z.names {
			if name == n.Name {
				t.zones[i].names = append(append([]string{}, z.names[:j]...), z.names[j+1:]...)
				if len(t.zones[i].names) == 0 {
					t.zones = append(t.zones[:i], t.zones[i+1:]...)
				}
				return nil
			}
		}
	}
	return cacheError("NodeNotInTree", "node %q in group %q was not found", n.Name, key)
}

func (t *nodeTree) update(old, new *Node) error {
	oldKey := ""
	if old != nil {
		oldKey = zoneKey(old)
	}
	if oldKey == zoneKey(new) {
		return nil
	}
	if old == nil {
		return &Fatal{"NilNodeDereference", "nodeTree.updateNode: old node is nil"}
	}
	_ = t.remove(old) // Kubernetes ignores whether the old node was in the tree
	t.add(new)
	return nil
}

// list is round robin across zones: the first name of each zone, then the second, ...
func (t *nodeTree) list() []string {
	out := []string{}
	for depth := 0; len(out) < t.size(); depth++ {
		for _, z := range t.zones {
			if depth < len(z.names) {
				out = append(out, z.names[depth])
			}
		}
	}
	return out
}

// Snapshot is what a scheduling cycle reads: NodeInfo clones of the live nodes and the lists derived from them.
type Snapshot struct {
	infos          map[string]*NodeInfo
	list, affinity []string
	antiAffinity   []string
	usedPVCs       map[string]bool
	pvcCounts      map[string]int // v1.37: the claims' reference counts the delta is applied to
	generation     int64
}

func NewSnapshot() *Snapshot {
	return &Snapshot{infos: map[string]*NodeInfo{}, usedPVCs: map[string]bool{}, pvcCounts: map[string]int{}}
}

func (s *Snapshot) rebuildLists(c *Cache, all bool) {
	if all {
		s.list = []string{}
		for _, name := range c.tree.list() {
			if _, ok := s.infos[name]; ok {
				s.list = append(s.list, name)
			}
		}
	}
	// v1.37 recounts the claims only on a full rebuild, which also clears the cache's delta.
	recount := !c.profile.incrementalPVC || all
	s.affinity, s.antiAffinity = []string{}, []string{}
	if recount {
		s.usedPVCs, s.pvcCounts = map[string]bool{}, map[string]int{}
	}
	for _, name := range s.list {
		info := s.infos[name]
		if len(info.podsWithAffinity) > 0 {
			s.affinity = append(s.affinity, name)
		}
		if len(info.podsWithRequiredAntiAffinity) > 0 {
			s.antiAffinity = append(s.antiAffinity, name)
		}
		if recount {
			for key, n := range info.pvcRefCounts {
				s.usedPVCs[key] = true
				s.pvcCounts[key] += n
			}
		}
	}
	if c.profile.incrementalPVC && all {
		c.pvcDelta = map[string]int{}
	}
}

// applyPVCDelta adds the cache's delta to the claims' counts and clears it (v1.37's applyPVCRefCountDelta);
// false if a count would go below zero (the caller then rebuilds everything, which recounts).
func (s *Snapshot) applyPVCDelta(c *Cache) bool {
	for _, key := range sortedKeys(c.pvcDelta) {
		n := s.pvcCounts[key] + c.pvcDelta[key]
		if n < 0 {
			return false
		}
		if n == 0 {
			delete(s.pvcCounts, key)
			delete(s.usedPVCs, key)
		} else {
			s.pvcCounts[key] = n
			s.usedPVCs[key] = true
		}
	}
	c.pvcDelta = map[string]int{}
	return true
}

// UpdateSnapshot re-clones the NodeInfos changed since the snapshot's generation, drops the ones no longer live
// when the snapshot holds more than the tree, and rebuilds the lists when something asks for it; the node list
// is reordered only on a full rebuild.
func (c *Cache) UpdateSnapshot(s *Snapshot) error {
	g0 := s.generation
	all, affinity, antiAffinity, pvcs := false, false, false, false
	recency := c.recency()
	for _, name := range recency {
		item := c.nodes[name]
		if item.generation <= g0 {
			break
		}
		if item.node == nil {
			continue
		}
		existing, ok := s.infos[name]
		if !ok {
			all = true
			existing = newNodeInfo(0)
		}
		clone := c.clone(name)
		affinity = affinity || (len(existing.podsWithAffinity) > 0) != (len(clone.podsWithAffinity) > 0)
		antiAffinity = antiAffinity || (len(existing.podsWithRequiredAntiAffinity) > 0) != (len(clone.podsWithRequiredAntiAffinity) > 0)
		if !pvcs {
			pvcs = len(existing.pvcRefCounts) != len(clone.pvcRefCounts)
			for key := range clone.pvcRefCounts {
				if _, had := existing.pvcRefCounts[key]; !had {
					pvcs = true
				}
			}
		}
		s.infos[name] = clone
	}
	if len(recency) > 0 {
		s.generation = c.nodes[recency[0]].generation
	}
	if len(s.infos) > c.tree.size() {
		toDelete := len(s.infos) - c.tree.size()
		for _, name := range sortedKeys(s.infos) {
			if toDelete <= 0 {
				break
			}
			if item, ok := c.nodes[name]; !ok || item.node == nil {
				delete(s.infos, name)
				toDelete--
			}
		}
		all = true
	}
	if c.profile.incrementalPVC {
		pvcs = false // v1.37 has no such flag: the delta is applied instead
		if !all && !s.applyPVCDelta(c) {
			all = true
		}
	}
	if all || affinity || antiAffinity || pvcs {
		s.rebuildLists(c, all)
	}
	if len(s.list) != c.tree.size() {
		message := fmt.Sprintf("snapshot state is not consistent, length of NodeInfoList=%d not equal to length of nodes in tree=%d", len(s.list), c.tree.size())
		s.rebuildLists(c, true)
		return &CacheError{"SnapshotInconsistent", message}
	}
	return nil
}
