package ironic

import (
	"context"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Inspection rules (API 1.96+): gophercloud has no package for them, so
// FleetStore speaks /v1/inspection_rules itself. Ironic answers a
// sensitive rule's conditions and actions as null on every read.

type wireRuleCondition struct {
	Op       string `json:"op"`
	Args     any    `json:"args"`
	Loop     any    `json:"loop,omitempty"`
	Multiple string `json:"multiple,omitempty"`
}

type wireRuleAction struct {
	Op   string `json:"op"`
	Args any    `json:"args"`
	Loop any    `json:"loop,omitempty"`
}

type wireRule struct {
	UUID        string              `json:"uuid,omitempty"`
	Description *string             `json:"description"`
	Phase       string              `json:"phase,omitempty"`
	Priority    int                 `json:"priority"`
	Sensitive   bool                `json:"sensitive"`
	Conditions  []wireRuleCondition `json:"conditions"`
	Actions     []wireRuleAction    `json:"actions"`
}

func wireRuleOf(r lifecycle.InspectionRule) wireRule {
	w := wireRule{Phase: r.Phase, Priority: r.Priority, Sensitive: r.Sensitive,
		Conditions: []wireRuleCondition{}, Actions: []wireRuleAction{}}
	if r.Description != "" {
		d := r.Description
		w.Description = &d
	}
	for _, c := range r.Conditions {
		wc := wireRuleCondition{Op: c.Op, Args: c.Args, Loop: c.Loop}
		if c.Loop != nil {
			wc.Multiple = c.Multiple
		}
		w.Conditions = append(w.Conditions, wc)
	}
	for _, a := range r.Actions {
		w.Actions = append(w.Actions, wireRuleAction(a))
	}
	return w
}

func ruleOf(w wireRule) lifecycle.InspectionRule {
	r := lifecycle.InspectionRule{ID: w.UUID, Phase: w.Phase, Priority: w.Priority, Sensitive: w.Sensitive}
	if w.Description != nil {
		r.Description = *w.Description
	}
	for _, c := range w.Conditions {
		r.Conditions = append(r.Conditions, lifecycle.RuleCondition(c))
	}
	for _, a := range w.Actions {
		r.Actions = append(r.Actions, lifecycle.RuleAction(a))
	}
	return r
}

func (s *FleetStore) ruleURL(parts ...string) string {
	return s.sc.ServiceURL(append([]string{"inspection_rules"}, parts...)...)
}

// CreateInspectionRule posts r.
func (s *FleetStore) CreateInspectionRule(ctx context.Context, r lifecycle.InspectionRule) (lifecycle.InspectionRule, error) {
	if err := s.require(lifecycle.FeatureInspectionRules, "baremetal_inspection_rule"); err != nil {
		return lifecycle.InspectionRule{}, err
	}
	var out wireRule
	_, err := s.sc.Post(ctx, s.ruleURL(), wireRuleOf(r), &out, &gophercloud.RequestOpts{OkCodes: []int{http.StatusCreated}})
	if err != nil {
		return lifecycle.InspectionRule{}, apiError("create inspection rule", err)
	}
	return ruleOf(out), nil
}

// InspectionRule reads rule id.
func (s *FleetStore) InspectionRule(ctx context.Context, id string) (lifecycle.InspectionRule, bool, error) {
	if err := s.require(lifecycle.FeatureInspectionRules, "baremetal_inspection_rule"); err != nil {
		return lifecycle.InspectionRule{}, false, err
	}
	var out wireRule
	_, err := s.sc.Get(ctx, s.ruleURL(id), &out, nil)
	switch {
	case isNotFound(err):
		return lifecycle.InspectionRule{}, false, nil
	case isBadRequest(err):
		// Not a UUID: Ironic names rules by UUID only.
		return lifecycle.InspectionRule{}, false, nil
	case err != nil:
		return lifecycle.InspectionRule{}, false, apiError("get inspection rule "+id, err)
	}
	return ruleOf(out), true, nil
}

// UpdateInspectionRule replaces rule id's fields with r's (sensitive only
// from false to true: Ironic refuses the other way).
func (s *FleetStore) UpdateInspectionRule(ctx context.Context, id string, r lifecycle.InspectionRule) (lifecycle.InspectionRule, error) {
	if err := s.require(lifecycle.FeatureInspectionRules, "baremetal_inspection_rule"); err != nil {
		return lifecycle.InspectionRule{}, err
	}
	w := wireRuleOf(r)
	var desc any
	if w.Description != nil {
		desc = *w.Description
	}
	patch := []map[string]any{
		{"op": "replace", "path": "/description", "value": desc},
		{"op": "replace", "path": "/priority", "value": w.Priority},
		{"op": "replace", "path": "/conditions", "value": w.Conditions},
		{"op": "replace", "path": "/actions", "value": w.Actions},
	}
	if w.Phase != "" {
		patch = append(patch, map[string]any{"op": "replace", "path": "/phase", "value": w.Phase})
	}
	if r.Sensitive {
		patch = append(patch, map[string]any{"op": "replace", "path": "/sensitive", "value": true})
	}
	var out wireRule
	_, err := s.sc.Patch(ctx, s.ruleURL(id), patch, &out, &gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}})
	if err != nil {
		return lifecycle.InspectionRule{}, apiError("update inspection rule "+id, err)
	}
	return ruleOf(out), nil
}

// DeleteInspectionRule deletes rule id (gone already is no error).
func (s *FleetStore) DeleteInspectionRule(ctx context.Context, id string) error {
	if err := s.require(lifecycle.FeatureInspectionRules, "baremetal_inspection_rule"); err != nil {
		return err
	}
	_, err := s.sc.Delete(ctx, s.ruleURL(id), &gophercloud.RequestOpts{OkCodes: []int{http.StatusNoContent}})
	if err != nil && !isNotFound(err) {
		return apiError("delete inspection rule "+id, err)
	}
	return nil
}
