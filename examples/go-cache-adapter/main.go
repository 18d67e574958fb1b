// Command go-cache-adapter is a from-scratch kube-scheduler cache (its own NodeInfo, node tree, image states and
// snapshot; nothing of Kubernetes' code) behind the kube-scheduler-spec conformance protocol: the skeleton to copy
// when you put your own cache behind the suite. Standard library only.
//
//	go build -o bin/go-cache-adapter . && ksspec conform --adapter bin/go-cache-adapter
//
// main.go is the protocol (JSON lines on stdin and stdout: hello, reset, step, bye), objects.go decodes the
// arguments and builds the observation, cache.go is the cache, resources.go what a pod requests. The contract it
// answers to is docs/contract/cache.md (the same for the snapshot and node_tree areas).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

const protocolVersion = "1"

// version is this adapter's version, reported in hello (the reports and `ksspec report` show it).
const version = "0.1.0"

// profiles are the version profiles whose cache behaviour this implementation follows (spec/versions.py).
var profiles = map[string]profile{
	"v1.34":    {expiry: true, forgetUnknownIsError: true, nodeOpsReturnNodeInfo: true},
	"v1.35":    {expiry: true, nodeOpsReturnNodeInfo: true},
	"v1.36":    {nodeOpsReturnNodeInfo: true},
	"v1.37":    {incrementalPVC: true},
	"pr141745": {incrementalPVC: true},
}

type request struct {
	Type    string          `json:"type"`
	ID      json.RawMessage `json:"id"`
	Area    string          `json:"area"`
	Profile string          `json:"profile"`
	TTLNs   int64           `json:"ttl_ns"`
	Op      string          `json:"op"`
	Args    json.RawMessage `json:"args"`
}

type response map[string]any

type server struct {
	cache    *Cache
	snapshot *Snapshot
}

func (s *server) handle(r request) response {
	switch r.Type {
	case "hello":
		names := []string{"v1.34", "v1.35", "v1.36", "v1.37", "pr141745"} // the keys of profiles, in order
		return response{"type": "hello", "id": r.ID, "protocol_version": protocolVersion,
			"implementation": "go-cache-adapter", "language": "go", "version": version,
			"homepage":     "examples/go-cache-adapter/README.md (kube-scheduler-spec)",
			"capabilities": map[string]any{"areas": []string{"cache", "snapshot", "node_tree"}, "profiles": names}}
	case "reset":
		p, ok := profiles[r.Profile]
		if !ok {
			return response{"type": "failure", "id": r.ID, "message": fmt.Sprintf("unknown profile %q", r.Profile)}
		}
		if r.Area != "cache" && r.Area != "snapshot" && r.Area != "node_tree" {
			return response{"type": "failure", "id": r.ID, "message": fmt.Sprintf("area %q is not implemented", r.Area)}
		}
		if r.TTLNs != 0 && !p.expiry {
			return response{"type": "failure", "id": r.ID, "message": fmt.Sprintf("profile %s has no expiry: ttl must be 0", r.Profile)}
		}
		s.cache, s.snapshot = NewCache(p, r.TTLNs), NewSnapshot()
		return response{"type": "ready", "id": r.ID}
	case "step":
		if s.cache == nil {
			return response{"type": "failure", "id": r.ID, "message": "step before reset"}
		}
		result := s.step(r.Op, r.Args)
		result["type"], result["id"] = "result", r.ID
		return result
	case "bye":
		return response{"type": "bye", "id": r.ID}
	}
	return response{"type": "failure", "id": r.ID, "message": fmt.Sprintf("unknown request type %q", r.Type)}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26) // arguments can be long; the default limit is 64 KiB
	out := bufio.NewWriter(os.Stdout)
	encoder := json.NewEncoder(out)
	s := &server{}
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintf(os.Stderr, "go-cache-adapter: not a JSON request: %v\n", err)
			os.Exit(2)
		}
		if err := encoder.Encode(s.handle(r)); err != nil {
			os.Exit(2)
		}
		out.Flush()
		if r.Type == "bye" {
			return
		}
	}
}
