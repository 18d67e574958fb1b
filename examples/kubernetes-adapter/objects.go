package main

// Decoding the spec's objects (conformance/codec.py, spec/objects.py, spec/dispatcher/api_calls.py) into the Kubernetes API
// types the real code takes. Every JSON object is decoded strictly: a field this adapter does not know is an
// error, so a spec field the adapter would silently ignore can never pass unnoticed. Fields equal to the spec's
// default are absent from the vectors; the zero values below are those defaults, except where a pointer marks one
// that is not (the namespace "default", the toleration operator "Equal", the taint effect "NoSchedule").

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	apicalls "k8s.io/kubernetes/pkg/scheduler/framework/api_calls"
)

// strict decodes raw into out, refusing unknown fields and trailing data.
func strict(raw json.RawMessage, out any, what string) error {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.DisallowUnknownFields()
	decoder.UseNumber()
	if err := decoder.Decode(out); err != nil {
		return fmt.Errorf("%s: %v", what, err)
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// Quantities
// ---------------------------------------------------------------------------------------------

// resourceList builds a v1.ResourceList from the spec's integers: CPU in millicores (read back with MilliValue),
// everything else in its base unit (read back with Value), as pkg/scheduler/framework.Resource.Add reads them.
func resourceList(quantities map[string]int64) v1.ResourceList {
	if len(quantities) == 0 {
		return nil
	}
	list := make(v1.ResourceList, len(quantities))
	for name, value := range quantities {
		if name == string(v1.ResourceCPU) {
			list[v1.ResourceName(name)] = *resource.NewMilliQuantity(value, resource.DecimalSI)
		} else {
			list[v1.ResourceName(name)] = *resource.NewQuantity(value, resource.DecimalSI)
		}
	}
	return list
}

// ---------------------------------------------------------------------------------------------
// Pods (spec/objects.py Pod)
// ---------------------------------------------------------------------------------------------

type containerPortJSON struct {
	ContainerPort int32  `json:"container_port"`
	HostPort      int32  `json:"host_port"`
	Protocol      string `json:"protocol"`
	HostIP        string `json:"host_ip"`
}

type containerJSON struct {
	Name          string              `json:"name"`
	Requests      map[string]int64    `json:"requests"`
	Ports         []containerPortJSON `json:"ports"`
	Image         string              `json:"image"`
	RestartPolicy *string             `json:"restart_policy"`
}

type affinityTermsJSON struct {
	Required  int `json:"required"`
	Preferred int `json:"preferred"`
	// The terms themselves (the cycle area's pods); without them the counts stand for that many placeholder terms.
	RequiredTerms  []podAffinityTermJSON      `json:"required_terms"`
	PreferredTerms []weightedAffinityTermJSON `json:"preferred_terms"`
}

type selectorRequirementJSON struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values"`
}

type labelSelectorJSON struct {
	MatchLabels      map[string]string         `json:"match_labels"`
	MatchExpressions []selectorRequirementJSON `json:"match_expressions"`
}

func (s *labelSelectorJSON) toSelector() *metav1.LabelSelector {
	if s == nil {
		return nil
	}
	selector := &metav1.LabelSelector{MatchLabels: s.MatchLabels}
	for _, e := range s.MatchExpressions {
		selector.MatchExpressions = append(selector.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: e.Key, Operator: metav1.LabelSelectorOperator(e.Operator), Values: e.Values,
		})
	}
	return selector
}

type podAffinityTermJSON struct {
	LabelSelector     *labelSelectorJSON `json:"label_selector"`
	Namespaces        []string           `json:"namespaces"`
	TopologyKey       string             `json:"topology_key"`
	NamespaceSelector *labelSelectorJSON `json:"namespace_selector"`
	MatchLabelKeys    []string           `json:"match_label_keys"`
	MismatchLabelKeys []string           `json:"mismatch_label_keys"`
}

func (t podAffinityTermJSON) toTerm() v1.PodAffinityTerm {
	return v1.PodAffinityTerm{
		LabelSelector: t.LabelSelector.toSelector(), Namespaces: t.Namespaces, TopologyKey: t.TopologyKey,
		NamespaceSelector: t.NamespaceSelector.toSelector(), MatchLabelKeys: t.MatchLabelKeys,
		MismatchLabelKeys: t.MismatchLabelKeys,
	}
}

type weightedAffinityTermJSON struct {
	Weight          int32               `json:"weight"`
	PodAffinityTerm podAffinityTermJSON `json:"pod_affinity_term"`
}

// required and preferred are the terms of a v1.PodAffinity or v1.PodAntiAffinity: the given ones, or as many
// placeholder terms as counted (the cache area's vectors, which only count them).
func (a affinityTermsJSON) required() []v1.PodAffinityTerm {
	if len(a.RequiredTerms) == 0 {
		return requiredTerms(a.Required)
	}
	var out []v1.PodAffinityTerm
	for _, t := range a.RequiredTerms {
		out = append(out, t.toTerm())
	}
	return out
}

func (a affinityTermsJSON) preferred() []v1.WeightedPodAffinityTerm {
	if len(a.PreferredTerms) == 0 {
		return weightedTerms(a.Preferred)
	}
	var out []v1.WeightedPodAffinityTerm
	for _, t := range a.PreferredTerms {
		out = append(out, v1.WeightedPodAffinityTerm{Weight: t.Weight, PodAffinityTerm: t.PodAffinityTerm.toTerm()})
	}
	return out
}

type topologySpreadConstraintJSON struct {
	MaxSkew            int32              `json:"max_skew"`
	TopologyKey        string             `json:"topology_key"`
	WhenUnsatisfiable  *string            `json:"when_unsatisfiable"`
	LabelSelector      *labelSelectorJSON `json:"label_selector"`
	MinDomains         *int32             `json:"min_domains"`
	NodeAffinityPolicy *string            `json:"node_affinity_policy"`
	NodeTaintsPolicy   *string            `json:"node_taints_policy"`
	MatchLabelKeys     []string           `json:"match_label_keys"`
}

func (c topologySpreadConstraintJSON) toConstraint() v1.TopologySpreadConstraint {
	when := v1.DoNotSchedule
	if c.WhenUnsatisfiable != nil {
		when = v1.UnsatisfiableConstraintAction(*c.WhenUnsatisfiable)
	}
	out := v1.TopologySpreadConstraint{
		MaxSkew: c.MaxSkew, TopologyKey: c.TopologyKey, WhenUnsatisfiable: when,
		LabelSelector: c.LabelSelector.toSelector(), MinDomains: c.MinDomains, MatchLabelKeys: c.MatchLabelKeys,
	}
	if c.NodeAffinityPolicy != nil {
		policy := v1.NodeInclusionPolicy(*c.NodeAffinityPolicy)
		out.NodeAffinityPolicy = &policy
	}
	if c.NodeTaintsPolicy != nil {
		policy := v1.NodeInclusionPolicy(*c.NodeTaintsPolicy)
		out.NodeTaintsPolicy = &policy
	}
	return out
}

// namespaceJSON is spec/objects.py's Namespace (the cycle area's cluster_add_namespace).
type namespaceJSON struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
}

func (n namespaceJSON) toNamespace() *v1.Namespace {
	return &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels}}
}

// pdbJSON is spec/objects.py's PodDisruptionBudget (the cycle area's cluster_add_pod_disruption_budget, format 4.5.0):
// the selector is matchLabels (absent: a nil selector; {}: an empty one), the status what the disruption controller
// wrote (DisruptionsAllowed, the names in DisruptedPods).
type pdbJSON struct {
	Name               string             `json:"name"`
	Namespace          *string            `json:"namespace"`
	Selector           *map[string]string `json:"selector"`
	DisruptionsAllowed int32              `json:"disruptions_allowed"`
	DisruptedPods      []string           `json:"disrupted_pods"`
}

func (p pdbJSON) toPDB() *policyv1.PodDisruptionBudget {
	namespace := "default"
	if p.Namespace != nil {
		namespace = *p.Namespace
	}
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: namespace},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: p.DisruptionsAllowed},
	}
	if p.Selector != nil {
		pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: *p.Selector}
	}
	if len(p.DisruptedPods) > 0 {
		pdb.Status.DisruptedPods = map[string]metav1.Time{}
		for _, name := range p.DisruptedPods {
			pdb.Status.DisruptedPods[name] = metav1.Time{Time: epoch}
		}
	}
	return pdb
}

type tolerationJSON struct {
	Key      string  `json:"key"`
	Operator *string `json:"operator"`
	Value    string  `json:"value"`
	Effect   string  `json:"effect"`
}

type podJSON struct {
	UID              string             `json:"uid"`
	Name             string             `json:"name"`
	Namespace        *string            `json:"namespace"`
	NodeName         string             `json:"node_name"`
	Containers       []containerJSON    `json:"containers"`
	InitContainers   []containerJSON    `json:"init_containers"`
	Overhead         map[string]int64   `json:"overhead"`
	PodLevelRequests map[string]int64   `json:"pod_level_requests"`
	PodAffinity      *affinityTermsJSON `json:"pod_affinity"`
	PodAntiAffinity  *affinityTermsJSON `json:"pod_anti_affinity"`
	HasNodeAffinity  bool               `json:"has_node_affinity"`
	// PreferredNodeAffinity is nil when absent and points at an empty list for "[]" (a non-nil empty list, which
	// NodeAffinity's PreScore does not skip).
	PreferredNodeAffinity *[]preferredSchedulingTermJSON `json:"preferred_node_affinity"`
	NodeSelector          map[string]string              `json:"node_selector"`
	Tolerations           []tolerationJSON               `json:"tolerations"`
	PVCClaims             []string                       `json:"pvc_claims"`
	Priority              int32                          `json:"priority"`
	SchedulerName         *string                        `json:"scheduler_name"`
	// The queue area's pods also carry these.
	SchedulingGates   []string          `json:"scheduling_gates"`
	NominatedNodeName string            `json:"nominated_node_name"`
	Labels            map[string]string `json:"labels"`
	// The cycle area's pods also carry these.
	TopologySpreadConstraints []topologySpreadConstraintJSON `json:"topology_spread_constraints"`
	PreemptionPolicy          *string                        `json:"preemption_policy"`
	// StartTime is Status.StartTime in ns after the adapter's epoch (preemption's pickOneNodeForPreemption reads it).
	StartTime *int64 `json:"start_time"`
	// Terminating sets DeletionTimestamp (the adapter's epoch): a graceful deletion has begun. PreemptedByScheduler
	// adds the DisruptionTarget condition, status True, reason PreemptionByScheduler (what PreemptPod patches).
	// DefaultPreemption's PodEligibleToPreemptOthers reads both (podTerminatingByPreemption), and prepareCandidate
	// sends no API call for a victim whose DeletionTimestamp is set.
	Terminating          bool `json:"terminating"`
	PreemptedByScheduler bool `json:"preempted_by_scheduler"`
}

// preferredSchedulingTermJSON is spec.objects.PreferredSchedulingTerm: a weight and a node selector term.
type preferredSchedulingTermJSON struct {
	Weight     int32                `json:"weight"`
	Preference nodeSelectorTermJSON `json:"preference"`
}

type nodeSelectorTermJSON struct {
	MatchExpressions []nodeSelectorRequirementJSON `json:"match_expressions"`
	MatchFields      []nodeSelectorRequirementJSON `json:"match_fields"`
}

type nodeSelectorRequirementJSON struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values"`
}

func nodeSelectorRequirements(rs []nodeSelectorRequirementJSON) []v1.NodeSelectorRequirement {
	var out []v1.NodeSelectorRequirement
	for _, r := range rs {
		out = append(out, v1.NodeSelectorRequirement{
			Key: r.Key, Operator: v1.NodeSelectorOperator(r.Operator), Values: r.Values,
		})
	}
	return out
}

// preferredSchedulingTerms keeps nil (absent) apart from a non-nil empty list.
func preferredSchedulingTerms(terms *[]preferredSchedulingTermJSON) []v1.PreferredSchedulingTerm {
	if terms == nil {
		return nil
	}
	out := make([]v1.PreferredSchedulingTerm, 0, len(*terms))
	for _, t := range *terms {
		out = append(out, v1.PreferredSchedulingTerm{Weight: t.Weight, Preference: v1.NodeSelectorTerm{
			MatchExpressions: nodeSelectorRequirements(t.Preference.MatchExpressions),
			MatchFields:      nodeSelectorRequirements(t.Preference.MatchFields),
		}})
	}
	return out
}

func containers(specs []containerJSON) []v1.Container {
	var out []v1.Container
	for _, c := range specs {
		container := v1.Container{
			Name:      c.Name,
			Image:     c.Image,
			Resources: v1.ResourceRequirements{Requests: resourceList(c.Requests)},
		}
		for _, p := range c.Ports {
			container.Ports = append(container.Ports, v1.ContainerPort{
				ContainerPort: p.ContainerPort, HostPort: p.HostPort, Protocol: v1.Protocol(p.Protocol), HostIP: p.HostIP,
			})
		}
		if c.RestartPolicy != nil {
			policy := v1.ContainerRestartPolicy(*c.RestartPolicy)
			container.RestartPolicy = &policy
		}
		out = append(out, container)
	}
	return out
}

// podAffinityTerm is one required inter-pod term. The cache reads only whether PodAffinity/PodAntiAffinity are
// set and how many required terms the latter has (podWithAffinity, podWithRequiredAntiAffinity in
// pkg/scheduler/framework/types.go); NewPodInfo parses the terms, so they are well formed.
func podAffinityTerm(i int) v1.PodAffinityTerm {
	return v1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"term": fmt.Sprint(i)}},
		TopologyKey:   v1.LabelHostname,
	}
}

func weightedTerms(n int) []v1.WeightedPodAffinityTerm {
	var out []v1.WeightedPodAffinityTerm
	for i := 0; i < n; i++ {
		out = append(out, v1.WeightedPodAffinityTerm{Weight: 1, PodAffinityTerm: podAffinityTerm(i)})
	}
	return out
}

func requiredTerms(n int) []v1.PodAffinityTerm {
	var out []v1.PodAffinityTerm
	for i := 0; i < n; i++ {
		out = append(out, podAffinityTerm(i))
	}
	return out
}

func (p podJSON) toPod() *v1.Pod {
	namespace := "default"
	if p.Namespace != nil {
		namespace = *p.Namespace
	}
	schedulerName := v1.DefaultSchedulerName
	if p.SchedulerName != nil {
		schedulerName = *p.SchedulerName
	}
	priority := p.Priority
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: types.UID(p.UID), Name: p.Name, Namespace: namespace, Labels: p.Labels},
		Spec: v1.PodSpec{
			NodeName:       p.NodeName,
			Containers:     containers(p.Containers),
			InitContainers: containers(p.InitContainers),
			Overhead:       resourceList(p.Overhead),
			NodeSelector:   p.NodeSelector,
			Priority:       &priority,
			SchedulerName:  schedulerName,
		},
	}
	if requests := resourceList(p.PodLevelRequests); requests != nil {
		pod.Spec.Resources = &v1.ResourceRequirements{Requests: requests}
	}
	if p.PodAffinity != nil || p.PodAntiAffinity != nil || p.HasNodeAffinity || p.PreferredNodeAffinity != nil {
		affinity := &v1.Affinity{}
		if p.PodAffinity != nil {
			affinity.PodAffinity = &v1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution:  p.PodAffinity.required(),
				PreferredDuringSchedulingIgnoredDuringExecution: p.PodAffinity.preferred(),
			}
		}
		if p.PodAntiAffinity != nil {
			affinity.PodAntiAffinity = &v1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution:  p.PodAntiAffinity.required(),
				PreferredDuringSchedulingIgnoredDuringExecution: p.PodAntiAffinity.preferred(),
			}
		}
		if p.HasNodeAffinity || p.PreferredNodeAffinity != nil {
			affinity.NodeAffinity = &v1.NodeAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: preferredSchedulingTerms(p.PreferredNodeAffinity),
			}
		}
		pod.Spec.Affinity = affinity
	}
	for _, t := range p.Tolerations {
		operator := v1.TolerationOpEqual
		if t.Operator != nil {
			operator = v1.TolerationOperator(*t.Operator)
		}
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, v1.Toleration{
			Key: t.Key, Operator: operator, Value: t.Value, Effect: v1.TaintEffect(t.Effect),
		})
	}
	for _, gate := range p.SchedulingGates {
		pod.Spec.SchedulingGates = append(pod.Spec.SchedulingGates, v1.PodSchedulingGate{Name: gate})
	}
	pod.Status.NominatedNodeName = p.NominatedNodeName
	for _, c := range p.TopologySpreadConstraints {
		pod.Spec.TopologySpreadConstraints = append(pod.Spec.TopologySpreadConstraints, c.toConstraint())
	}
	if p.PreemptionPolicy != nil {
		policy := v1.PreemptionPolicy(*p.PreemptionPolicy)
		pod.Spec.PreemptionPolicy = &policy
	}
	if p.StartTime != nil {
		pod.Status.StartTime = &metav1.Time{Time: epoch.Add(time.Duration(*p.StartTime))}
	}
	if p.Terminating {
		pod.DeletionTimestamp = &metav1.Time{Time: epoch}
	}
	if p.PreemptedByScheduler {
		pod.Status.Conditions = append(pod.Status.Conditions, v1.PodCondition{
			Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: v1.PodReasonPreemptionByScheduler,
		})
	}
	for i, claim := range p.PVCClaims {
		pod.Spec.Volumes = append(pod.Spec.Volumes, v1.Volume{
			Name:         fmt.Sprintf("volume-%d", i),
			VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}},
		})
	}
	return pod
}

// pvcKeys are the namespace/claim keys the pod's claims count under (framework.GetNamespacedName).
func (p podJSON) pvcKeys() []string {
	namespace := "default"
	if p.Namespace != nil {
		namespace = *p.Namespace
	}
	var keys []string
	for _, claim := range p.PVCClaims {
		keys = append(keys, namespace+"/"+claim)
	}
	return keys
}

// ---------------------------------------------------------------------------------------------
// Nodes (spec/objects.py Node)
// ---------------------------------------------------------------------------------------------

type taintJSON struct {
	Key    string  `json:"key"`
	Value  string  `json:"value"`
	Effect *string `json:"effect"`
}

type imageJSON struct {
	Names     []string `json:"names"`
	SizeBytes int64    `json:"size_bytes"`
}

type nodeJSON struct {
	Name          string            `json:"name"`
	Allocatable   map[string]int64  `json:"allocatable"`
	Labels        map[string]string `json:"labels"`
	Taints        []taintJSON       `json:"taints"`
	Unschedulable bool              `json:"unschedulable"`
	Images        []imageJSON       `json:"images"`
}

func (n nodeJSON) toNode() *v1.Node {
	node := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels},
		Spec:       v1.NodeSpec{Unschedulable: n.Unschedulable},
		Status:     v1.NodeStatus{Allocatable: resourceList(n.Allocatable)},
	}
	for _, t := range n.Taints {
		effect := v1.TaintEffectNoSchedule
		if t.Effect != nil {
			effect = v1.TaintEffect(*t.Effect)
		}
		node.Spec.Taints = append(node.Spec.Taints, v1.Taint{Key: t.Key, Value: t.Value, Effect: effect})
	}
	for _, image := range n.Images {
		node.Status.Images = append(node.Status.Images, v1.ContainerImage{Names: image.Names, SizeBytes: image.SizeBytes})
	}
	return node
}

// ---------------------------------------------------------------------------------------------
// API calls (spec/dispatcher/api_calls.py)
// ---------------------------------------------------------------------------------------------

type conditionJSON struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type podStatusJSON struct {
	Conditions        map[string]conditionJSON `json:"conditions"`
	NominatedNodeName string                   `json:"nominated_node_name"`
}

type nominatingInfoJSON struct {
	Mode              string `json:"mode"`
	NominatedNodeName string `json:"nominated_node_name"`
}

type callJSON struct {
	CallType       string              `json:"call_type"`
	UID            string              `json:"uid"`
	NodeName       string              `json:"node_name"`
	Status         *podStatusJSON      `json:"status"`
	Condition      *conditionJSON      `json:"condition"`
	NominatingInfo *nominatingInfoJSON `json:"nominating_info"`
	Executed       bool                `json:"executed"`
}

func (c conditionJSON) toCondition() *v1.PodCondition {
	return &v1.PodCondition{
		Type: v1.PodConditionType(c.Type), Status: v1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message,
	}
}

// toStatus is the pod status; the spec keys conditions by type, Kubernetes lists them (here sorted by type).
func (s podStatusJSON) toStatus() v1.PodStatus {
	status := v1.PodStatus{NominatedNodeName: s.NominatedNodeName}
	types := make([]string, 0, len(s.Conditions))
	for t := range s.Conditions {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		status.Conditions = append(status.Conditions, *s.Conditions[t].toCondition())
	}
	return status
}

// podForStatus is the pod object the scheduler would hold: the status the call is created from, or the one the
// informer delivers to SyncObject.
func podForStatus(uid string, status v1.PodStatus) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: uid, Namespace: "default"}, Status: status}
}

// toCall builds the in-tree call through the constructors the scheduler uses (apicalls.Implementations).
func (c callJSON) toCall() (fwk.APICall, error) {
	switch c.CallType {
	case string(apicalls.PodBinding):
		if c.Status != nil || c.Condition != nil || c.NominatingInfo != nil || c.Executed {
			return nil, fmt.Errorf("a pod_binding call has only uid and node_name")
		}
		binding := &v1.Binding{
			ObjectMeta: metav1.ObjectMeta{UID: types.UID(c.UID), Name: c.UID, Namespace: "default"},
			Target:     v1.ObjectReference{Kind: "Node", Name: c.NodeName},
		}
		return apicalls.Implementations.PodBinding(binding), nil
	case string(apicalls.PodStatusPatch):
		if c.NodeName != "" {
			return nil, fmt.Errorf("a pod_status_patch call has no node_name")
		}
		if c.Executed {
			// The constructor starts every call unexecuted; only Execute sets the flag. No vector adds one.
			return nil, fmt.Errorf("cannot add a status patch that is already executed")
		}
		if c.Status == nil {
			return nil, fmt.Errorf("a pod_status_patch call needs a status")
		}
		var condition *v1.PodCondition
		if c.Condition != nil {
			condition = c.Condition.toCondition()
		}
		var info *nominatingInfo
		if c.NominatingInfo != nil {
			mode, err := nominatingModeOf(c.NominatingInfo.Mode)
			if err != nil {
				return nil, err
			}
			info = &nominatingInfo{NominatedNodeName: c.NominatingInfo.NominatedNodeName, NominatingMode: mode}
		}
		return newStatusPatch(podForStatus(c.UID, c.Status.toStatus()), condition, info), nil
	}
	return nil, fmt.Errorf("unknown call_type %q", c.CallType)
}

func nominatingModeOf(mode string) (nominatingMode, error) {
	switch mode {
	case "Noop":
		return modeNoop, nil
	case "Override":
		return modeOverride, nil
	}
	return modeNoop, fmt.Errorf("unknown nominating mode %q", mode)
}

func nominatingModeName(mode nominatingMode) string {
	if mode == modeOverride {
		return "Override"
	}
	return "Noop"
}
