package lifecycle

import (
	"fmt"
	"sort"
	"strings"
)

// Label selector operators (Kubernetes' LabelSelectorOperator names).
const (
	OpIn           = "In"
	OpNotIn        = "NotIn"
	OpExists       = "Exists"
	OpDoesNotExist = "DoesNotExist"
)

// Operators lists the supported match-expression operators.
var Operators = []string{OpIn, OpNotIn, OpExists, OpDoesNotExist}

// LabelExpression is one match expression of a label selector.
type LabelExpression struct {
	Key      string
	Operator string
	Values   []string
}

// Validate checks the operator and that values are given exactly when the
// operator needs them (as Kubernetes does).
func (e LabelExpression) Validate() error {
	if e.Key == "" {
		return fmt.Errorf("the key is empty")
	}
	switch e.Operator {
	case OpIn, OpNotIn:
		if len(e.Values) == 0 {
			return fmt.Errorf("key %q: operator %s needs at least one value", e.Key, e.Operator)
		}
	case OpExists, OpDoesNotExist:
		if len(e.Values) > 0 {
			return fmt.Errorf("key %q: operator %s takes no values", e.Key, e.Operator)
		}
	default:
		return fmt.Errorf("key %q: unknown operator %q (want one of %s)", e.Key, e.Operator, strings.Join(Operators, ", "))
	}
	return nil
}

// Matches reports whether labels satisfy the expression.
func (e LabelExpression) Matches(labels map[string]string) bool {
	v, ok := labels[e.Key]
	switch e.Operator {
	case OpIn:
		return ok && claimContains(e.Values, v)
	case OpNotIn:
		// Kubernetes: a missing key satisfies NotIn.
		return !ok || !claimContains(e.Values, v)
	case OpExists:
		return ok
	case OpDoesNotExist:
		return !ok
	}
	return false
}

// Selector says which hosts a claim (or the hosts data source) accepts.
// Empty fields match everything.
type Selector struct {
	MatchLabels      map[string]string
	MatchExpressions []LabelExpression
	ResourceClass    string
	// Traits must all be on the host (Ironic's allocation semantics).
	Traits           []string
	MinCPUs          int
	MinRAMMebibytes  int
	MinDiskGigabytes int
	// Candidates, when non-empty, restricts the hosts to these node UUIDs
	// or names.
	Candidates []string
}

// Validate checks the match expressions.
func (s Selector) Validate() error {
	for i, e := range s.MatchExpressions {
		if err := e.Validate(); err != nil {
			return fmt.Errorf("match expression %d: %w", i, err)
		}
	}
	return nil
}

// MatchesLabels reports whether labels satisfy every match label and every
// match expression.
func (s Selector) MatchesLabels(labels map[string]string) bool {
	for k, v := range s.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, e := range s.MatchExpressions {
		if !e.Matches(labels) {
			return false
		}
	}
	return true
}

// Rejection reasons, in the order they are checked and reported.
const (
	ReasonNotCandidate  = "not a candidate"
	ReasonInError       = "in error"
	ReasonNotAvailable  = "not available"
	ReasonDetached      = "detached"
	ReasonMaintenance   = "in maintenance"
	ReasonClaimed       = "already claimed"
	ReasonLabels        = "labels do not match"
	ReasonResourceClass = "resource class does not match"
	ReasonTraits        = "missing traits"
	ReasonCPUs          = "too few CPUs"
	ReasonRAM           = "too little RAM"
	ReasonDisk          = "too small a disk"
	ReasonNoHardware    = "hardware unknown (not inspected)"
)

var reasonOrder = []string{
	ReasonNotCandidate, ReasonInError, ReasonNotAvailable, ReasonDetached, ReasonMaintenance, ReasonClaimed,
	ReasonLabels, ReasonResourceClass, ReasonTraits, ReasonNoHardware, ReasonCPUs, ReasonRAM, ReasonDisk,
}

// isCandidate reports whether h is in the selector's candidate list (or the
// list is empty).
func (s Selector) isCandidate(h HostSummary) bool {
	if len(s.Candidates) == 0 {
		return true
	}
	for _, c := range s.Candidates {
		if c != "" && (c == h.ID || c == h.Name) {
			return true
		}
	}
	return false
}

// Reject returns why h does not match the selector's labels, resource
// class, traits, hardware minimums and candidates, or "" when it matches.
// It does not look at availability (SelectHosts does).
func (s Selector) Reject(h HostSummary) string {
	if !s.isCandidate(h) {
		return ReasonNotCandidate
	}
	return s.rejectAttributes(h)
}

func (s Selector) rejectAttributes(h HostSummary) string {
	if !s.MatchesLabels(h.Labels) {
		return ReasonLabels
	}
	if s.ResourceClass != "" && s.ResourceClass != h.ResourceClass {
		return ReasonResourceClass
	}
	for _, t := range s.Traits {
		if !claimContains(h.Traits, t) {
			return ReasonTraits
		}
	}
	if s.MinCPUs <= 0 && s.MinRAMMebibytes <= 0 && s.MinDiskGigabytes <= 0 {
		return ""
	}
	hw := h.Hardware
	if hw == nil {
		return ReasonNoHardware
	}
	if s.MinCPUs > 0 && hw.CPUCount < s.MinCPUs {
		return ReasonCPUs
	}
	if s.MinRAMMebibytes > 0 && hw.RAMMebibytes < s.MinRAMMebibytes {
		return ReasonRAM
	}
	if s.MinDiskGigabytes > 0 && LargestDiskGigabytes(hw) < s.MinDiskGigabytes {
		return ReasonDisk
	}
	return ""
}

// LargestDiskGigabytes is the size of the host's largest disk in GiB: of
// the inventory's disks when UseInventoryDisks found them, else Ironic's
// local_gb (the root disk).
func LargestDiskGigabytes(hw *HardwareDetails) int {
	if hw == nil {
		return 0
	}
	var largest int64
	for _, d := range hw.Storage {
		if d.SizeBytes > largest {
			largest = d.SizeBytes
		}
	}
	return int(largest / (1 << 30))
}

// failedProvisionState reports whether an Ironic provision state is a
// failure (clean failed, inspect failed, deploy failed, error, ...).
func failedProvisionState(ps string) bool {
	return ps == "error" || strings.HasSuffix(ps, " failed")
}

// Claimable reports whether a host can be claimed at all, whatever the
// selector: available (and Ironic agrees), not failed, not detached, not in
// maintenance, not already claimed. The reason is "" when it can.
func Claimable(h HostSummary) (reason, state string) {
	switch {
	case failedProvisionState(h.ProvisionState):
		return ReasonInError, h.ProvisionState
	case h.State != StateAvailable:
		st := string(h.State)
		if st == "" {
			st = h.ProvisionState
		}
		if st == "" {
			st = "unknown"
		}
		return ReasonNotAvailable, st
	case h.ProvisionState != "" && h.ProvisionState != "available":
		// Ironic is cleaning or holding a node the state mapping calls
		// available: not ready to be claimed yet.
		return ReasonNotAvailable, h.ProvisionState
	case Detached(h.Observation):
		return ReasonDetached, ""
	case h.Maintenance:
		return ReasonMaintenance, ""
	case h.AllocationID != "":
		return ReasonClaimed, ""
	}
	return "", ""
}

// Rejections counts why hosts were not chosen, for the error message.
type Rejections struct {
	// Considered is how many hosts were looked at.
	Considered int
	// Counts is the number of hosts per reason.
	Counts map[string]int
	// States counts the hosts rejected as not available (or in error) per
	// state.
	States map[string]map[string]int
}

func (r *Rejections) add(reason, state string) {
	if r.Counts == nil {
		r.Counts = map[string]int{}
	}
	r.Counts[reason]++
	if state != "" {
		if r.States == nil {
			r.States = map[string]map[string]int{}
		}
		if r.States[reason] == nil {
			r.States[reason] = map[string]int{}
		}
		r.States[reason][state]++
	}
}

// Summary lists the reasons with their counts in the documented order,
// e.g. "3 not available (state: inspecting 2, provisioned 1)".
func (r Rejections) Summary() []string {
	var out []string
	for _, reason := range reasonOrder {
		n := r.Counts[reason]
		if n == 0 {
			continue
		}
		s := fmt.Sprintf("%d %s", n, reason)
		if states := r.States[reason]; len(states) > 0 {
			keys := make([]string, 0, len(states))
			for k := range states {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			parts := make([]string, 0, len(keys))
			for _, k := range keys {
				parts = append(parts, fmt.Sprintf("%s %d", k, states[k]))
			}
			s += " (state: " + strings.Join(parts, ", ") + ")"
		}
		out = append(out, s)
	}
	return out
}

// Error is the message when no host matches: how many hosts were
// considered and why each group was rejected.
func (r Rejections) Error() string {
	msg := fmt.Sprintf("no available host matches the claim: %d %s considered", r.Considered, claimPlural(r.Considered, "host", "hosts"))
	if parts := r.Summary(); len(parts) > 0 {
		msg += "; " + strings.Join(parts, "; ")
	}
	return msg
}

func claimPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// SelectHosts returns the hosts a claim may take, in order of preference,
// and why the others were rejected.
//
// A host is accepted when it is claimable (BMO state available and Ironic
// provision state available, not in a failed state, not in maintenance,
// without an allocation) and matches the selector. A host that already
// carries one of ownAllocations (the claim's own allocation) is accepted
// whatever its state and comes first, which makes a claim idempotent.
//
// Order without spreadLabel: by name, then by node UUID.
//
// Order with spreadLabel (a failure-domain label key): for every value of
// that label, count the hosts (among all hosts) that are claimed already.
// The k-th host (by name, from 0) of a domain with c claimed hosts gets the
// load c+k; hosts are ordered by load, then domain value, then name, then
// UUID. So the first choice is in the least-used domain, and the next
// choices round-robin across domains as they fill up (several claims of
// one apply spread too). Hosts without the label come last, by name.
func SelectHosts(hosts []HostSummary, sel Selector, spreadLabel string, ownAllocations ...string) ([]HostSummary, Rejections) {
	rej := Rejections{Considered: len(hosts)}
	var own, ok []HostSummary
	for _, h := range hosts {
		if h.AllocationID != "" && claimContains(ownAllocations, h.AllocationID) {
			own = append(own, h)
			continue
		}
		if !sel.isCandidate(h) {
			rej.add(ReasonNotCandidate, "")
			continue
		}
		if reason, state := Claimable(h); reason != "" {
			rej.add(reason, state)
			continue
		}
		if reason := sel.rejectAttributes(h); reason != "" {
			rej.add(reason, "")
			continue
		}
		ok = append(ok, h)
	}
	sortHostsByName(own)
	sortHostsByName(ok)
	if spreadLabel != "" {
		ok = spreadOrder(hosts, ok, spreadLabel)
	}
	return append(own, ok...), rej
}

func sortHostsByName(hs []HostSummary) {
	sort.SliceStable(hs, func(i, j int) bool {
		if hs[i].Name != hs[j].Name {
			return hs[i].Name < hs[j].Name
		}
		return hs[i].ID < hs[j].ID
	})
}

// spreadOrder reorders accepted (sorted by name) per the spread rule.
func spreadOrder(all, accepted []HostSummary, label string) []HostSummary {
	claimed := map[string]int{}
	for _, h := range all {
		if v, ok := h.Labels[label]; ok && h.AllocationID != "" {
			claimed[v]++
		}
	}
	type ranked struct {
		h      HostSummary
		domain string
		load   int
	}
	var inDomain []ranked
	var noDomain []HostSummary
	seen := map[string]int{}
	for _, h := range accepted {
		v, ok := h.Labels[label]
		if !ok {
			noDomain = append(noDomain, h)
			continue
		}
		inDomain = append(inDomain, ranked{h: h, domain: v, load: claimed[v] + seen[v]})
		seen[v]++
	}
	sort.SliceStable(inDomain, func(i, j int) bool {
		a, b := inDomain[i], inDomain[j]
		if a.load != b.load {
			return a.load < b.load
		}
		if a.domain != b.domain {
			return a.domain < b.domain
		}
		if a.h.Name != b.h.Name {
			return a.h.Name < b.h.Name
		}
		return a.h.ID < b.h.ID
	})
	out := make([]HostSummary, 0, len(accepted))
	for _, r := range inDomain {
		out = append(out, r.h)
	}
	return append(out, noDomain...)
}

func claimContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Contradiction reports a selector no host can match: for one label key,
// match labels and match expressions that cannot all hold (a key required
// and forbidden, or no value left that every clause accepts). It names the
// key and the clauses; nil when the selector can match some host.
func (s Selector) Contradiction() error {
	type keyRule struct {
		clauses   []string
		mustExist bool
		mustNot   bool
		allowed   map[string]bool // nil: any value
		forbidden map[string]bool
	}
	rules := map[string]*keyRule{}
	var keys []string
	rule := func(k string) *keyRule {
		if rules[k] == nil {
			rules[k] = &keyRule{forbidden: map[string]bool{}}
			keys = append(keys, k)
		}
		return rules[k]
	}
	restrict := func(r *keyRule, values []string) {
		next := map[string]bool{}
		for _, v := range values {
			if r.allowed == nil || r.allowed[v] {
				next[v] = true
			}
		}
		r.allowed = next
		r.mustExist = true
	}
	mk := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		mk = append(mk, k)
	}
	sort.Strings(mk)
	for _, k := range mk {
		r := rule(k)
		r.clauses = append(r.clauses, fmt.Sprintf("match_labels %s = %q", k, s.MatchLabels[k]))
		restrict(r, []string{s.MatchLabels[k]})
	}
	for i, e := range s.MatchExpressions {
		r := rule(e.Key)
		clause := fmt.Sprintf("match_expressions[%d] %s %s", i, e.Key, e.Operator)
		if len(e.Values) > 0 {
			clause += fmt.Sprintf(" %q", e.Values)
		}
		r.clauses = append(r.clauses, clause)
		switch e.Operator {
		case OpIn:
			restrict(r, e.Values)
		case OpNotIn:
			for _, v := range e.Values {
				r.forbidden[v] = true
			}
		case OpExists:
			r.mustExist = true
		case OpDoesNotExist:
			r.mustNot = true
		}
	}
	for _, k := range keys {
		r := rules[k]
		impossible := r.mustExist && r.mustNot
		if r.allowed != nil && !impossible {
			left := 0
			for v := range r.allowed {
				if !r.forbidden[v] {
					left++
				}
			}
			impossible = left == 0
		}
		if impossible {
			return fmt.Errorf("label %q: %s contradict each other, so no host can match", k, strings.Join(r.clauses, " and "))
		}
	}
	return nil
}
