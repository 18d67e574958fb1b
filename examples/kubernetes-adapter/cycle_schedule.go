package main

// The cycle area's scheduling cycle (cycle_area.go): Kubernetes' own search and scoring, and the steps that run
// them (schedule_pod, fail_scheduling).

import (
	"context"
	"errors"
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// -- the scheduling cycle ---------------------------------------------------------------------------------

// cycle runs a scheduling cycle for the pod as schedulePod does, records its decision and returns the rejected
// nodes with their statuses.
func (a *cycleArea) cycle(pod *v1.Pod) (map[string]*fwk.Status, error) {
	if exportedOnly {
		return nil, unreachable("findNodesThatFitPod")
	}
	ctx := klog.NewContext(context.Background(), a.logger)
	snapshot := a.snapshot()
	_ = a.sched.Cache.UpdateSnapshot(a.logger, snapshot) // an inconsistency leaves the rebuilt lists to use
	if numNodes(snapshot) == 0 {
		a.decision = decisionJSON(nil, nil, nil, scheduler.ErrNoNodesAvailable.Error(), "")
		return map[string]*fwk.Status{}, nil
	}
	schedFramework := a.framework()
	state := framework.NewCycleState()
	a.state = state
	feasible, diagnosis, err := findNodesThatFitPod(a.sched, ctx, schedFramework, state, pod)
	if err != nil {
		return nil, fmt.Errorf("findNodesThatFitPod: %w", err)
	}
	rejectedNodes := map[string]*fwk.Status{}
	diagnosis.NodeToStatus.ForEachExplicitNode(func(name string, status *fwk.Status) { rejectedNodes[name] = status })
	// Nodes PreFilter rejected or left out share the absent-nodes status (the default one, for nodes the search
	// never reached, has no plugin and no reason).
	if absent := diagnosis.NodeToStatus.AbsentNodesStatus(); absent.Plugin() != "" || len(absent.Reasons()) > 0 {
		isFeasible := map[string]bool{}
		for _, info := range feasible {
			isFeasible[info.Node().Name] = true
		}
		all, _ := snapshot.List()
		for _, info := range all {
			if name := info.Node().Name; !isFeasible[name] && rejectedNodes[name] == nil {
				rejectedNodes[name] = absent
			}
		}
	}
	names := []string{}
	for _, info := range feasible {
		names = append(names, info.Node().Name)
	}
	switch len(feasible) {
	case 0:
		fitError := &framework.FitError{Pod: pod, NumAllNodes: numNodes(snapshot), Diagnosis: diagnosis}
		a.decision = decisionJSON(nil, nil, nil, fitError.Error(), "")
		a.fit = fitError
	case 1:
		a.decision = decisionJSON(names, nil, names, "", names[0])
	default:
		scores, err := prioritizeNodes(ctx, a.sched, schedFramework, state, pod, feasible)
		if err != nil {
			return nil, cycleNotEnabled{fmt.Sprintf("prioritizeNodes: %v", err)}
		}
		top := int64(0)
		for i, s := range scores {
			if i == 0 || s.TotalScore > top {
				top = s.TotalScore
			}
		}
		allowed := []string{}
		for _, s := range scores {
			if s.TotalScore == top {
				allowed = append(allowed, s.Name)
			}
		}
		chosen := popHost(scores)
		a.decision = decisionJSON(names, scores, allowed, "", chosen)
	}
	return rejectedNodes, nil
}

func decisionJSON(feasible []string, scores []nodePluginScores, allowed []string, message, chosen string) map[string]any {
	sortedFeasible := append([]string{}, feasible...)
	sort.Strings(sortedFeasible)
	sortedAllowed := append([]string{}, allowed...)
	sort.Strings(sortedAllowed)
	scored := map[string]any{}
	for _, s := range scores {
		plugins := map[string]int64{}
		for _, p := range s.Scores {
			plugins[p.Name] = p.Score
		}
		scored[s.Name] = map[string]any{"plugins": plugins, "total": s.TotalScore}
	}
	return map[string]any{
		"feasible": sortedFeasible, "scores": scored, "allowed": sortedAllowed, "message": message, "chosen": chosen,
	}
}

// feasible is the pending pod if a cycle over the refreshed snapshot found node feasible; else a rejection.
func (a *cycleArea) feasible(uid, node string) (*v1.Pod, error) {
	pod := a.pending[uid]
	if err := require(pod != nil && a.running, "pod %s is not pending", uid); err != nil {
		return nil, err
	}
	rejectedNodes, err := a.cycle(pod)
	if err != nil {
		return nil, err
	}
	if _, err := a.snapshot().Get(node); err != nil {
		return nil, rejected{kind: kindNodeNotInSnapshot, message: fmt.Sprintf("node %s is not in the snapshot", node)}
	}
	if status := rejectedNodes[node]; status != nil {
		return nil, rejected{kind: kindUnschedulable, message: fmt.Sprintf("node %s: %s rejects pod %s", node, status.Plugin(), uid),
			filters: map[string]verdict{node: verdictOf(status)}}
	}
	for _, name := range a.decision["feasible"].([]string) {
		if name == node {
			return pod, nil
		}
	}
	return nil, cycleNotEnabled{fmt.Sprintf("the search stopped before it examined node %s", node)}
}

func (a *cycleArea) failScheduling(args failSchedulingArgs) error {
	pod := a.pending[args.UID]
	if err := require(pod != nil && a.running, "pod %s is not pending", args.UID); err != nil {
		return err
	}
	if args.Node == nil {
		rejectedNodes, err := a.cycle(pod)
		if err != nil {
			return err
		}
		if fitting := a.decision["feasible"].([]string); len(fitting) > 0 {
			return cycleNotEnabled{fmt.Sprintf("pod %s fits on %v", args.UID, fitting)}
		}
		for name, status := range rejectedNodes {
			a.filters[name] = verdictOf(status)
		}
		if a.preemption {
			return a.postFilter(pod)
		}
		if a.fit == nil { // ErrNoNodesAvailable: clearNominatedNode
			a.handleFailure(pod, clearNominatedNode, noNodesStatus())
		} else { // a FitError without PostFilter plugins: no nominating info
			a.handleFailure(pod, nil, fwk.NewStatus(fwk.Unschedulable).WithError(a.fit))
		}
		return nil
	}
	if err := require(args.Point != nil && (*args.Point == pointReserve || *args.Point == pointPermit),
		"%v is not a scheduling-cycle failure point", args.Point); err != nil {
		return err
	}
	if _, err := a.feasible(args.UID, *args.Node); err != nil {
		var r rejected
		if errors.As(err, &r) {
			return cycleNotEnabled{r.message}
		}
		return err
	}
	// Reserve or Permit rejected the assumed pod: Unreserve and ForgetPod; the pod stays pending.
	assumed := withNodeName(pod, *args.Node)
	if err := a.sched.Cache.AssumePod(a.logger, assumed); err != nil {
		return err
	}
	a.forgetNomination(assumed) // assume: DeleteNominatedPodIfExists
	if err := a.sched.Cache.ForgetPod(a.logger, assumed); err != nil {
		return err
	}
	a.handleFailure(assumed, clearNominatedNode, rejectedOnNode(pod, *args.Node, *args.Point))
	return nil
}
