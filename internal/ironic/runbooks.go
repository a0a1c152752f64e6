package ironic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/runbooks"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// FleetStore implements lifecycle.RunbookStore (Ironic's runbooks, API
// 1.92+, through gophercloud's runbooks package) and
// lifecycle.InspectionRuleStore (API 1.96+, inspection_rules.go): the
// objects that act on many nodes at once. Each call needs its feature in
// the connection's microversion, else it is a *lifecycle.FeatureError.
type FleetStore struct {
	sc  *gophercloud.ServiceClient
	api lifecycle.APIFeatures
}

var (
	_ lifecycle.RunbookStore        = (*FleetStore)(nil)
	_ lifecycle.InspectionRuleStore = (*FleetStore)(nil)
)

// NewFleetStore returns the store over sc; api is what the Ironic in use
// offers (the connection's microversion and the server's maximum).
func NewFleetStore(sc *gophercloud.ServiceClient, api lifecycle.APIFeatures) *FleetStore {
	if api.Microversion == "" {
		api.Microversion = sc.Microversion
	}
	if api.ServerMax == "" {
		api.ServerMax = api.Microversion
	}
	return &FleetStore{sc: sc, api: api}
}

func (s *FleetStore) require(f lifecycle.Feature, what string) error {
	if s.api.Microversion == "" || s.api.Has(f) {
		return nil
	}
	return &lifecycle.FeatureError{Attribute: what, Feature: f, Microversion: s.api.Microversion, ServerMax: s.api.ServerMax}
}

// CreateRunbook posts rb.
func (s *FleetStore) CreateRunbook(ctx context.Context, rb lifecycle.Runbook) (lifecycle.Runbook, error) {
	if err := s.require(lifecycle.FeatureRunbooks, "baremetal_runbook"); err != nil {
		return lifecycle.Runbook{}, err
	}
	public := rb.Public
	opts := runbooks.CreateOpts{Name: rb.Name, Steps: wireRunbookSteps(rb.Steps), Extra: anyMap(rb.Extra), Public: &public, Owner: rb.Owner}
	out, err := runbooks.Create(ctx, s.sc, opts).Extract()
	if err != nil {
		return lifecycle.Runbook{}, apiError("create runbook "+rb.Name, err)
	}
	return runbookOf(out), nil
}

// Runbook reads the runbook of UUID or name ref.
func (s *FleetStore) Runbook(ctx context.Context, ref string) (lifecycle.Runbook, bool, error) {
	if err := s.require(lifecycle.FeatureRunbooks, "baremetal_runbook"); err != nil {
		return lifecycle.Runbook{}, false, err
	}
	out, err := runbooks.Get(ctx, s.sc, ref).Extract()
	switch {
	case isNotFound(err):
		return lifecycle.Runbook{}, false, nil
	case err != nil:
		return lifecycle.Runbook{}, false, apiError("get runbook "+ref, err)
	}
	return runbookOf(out), true, nil
}

// UpdateRunbook replaces runbook id's name, steps, public, owner and extra
// with rb's (a JSON patch of replace operations; an empty owner is null).
func (s *FleetStore) UpdateRunbook(ctx context.Context, id string, rb lifecycle.Runbook) (lifecycle.Runbook, error) {
	if err := s.require(lifecycle.FeatureRunbooks, "baremetal_runbook"); err != nil {
		return lifecycle.Runbook{}, err
	}
	extra := anyMap(rb.Extra)
	if extra == nil {
		extra = map[string]any{}
	}
	// Ironic clears the owner of a runbook whose public is patched (to
	// either value), and refuses an owner patched along with public true:
	// the owner goes in the patch only when there is one.
	patch := []map[string]any{
		{"op": "replace", "path": "/name", "value": rb.Name},
		{"op": "replace", "path": "/steps", "value": wireRunbookSteps(rb.Steps)},
		{"op": "replace", "path": "/public", "value": rb.Public},
		{"op": "replace", "path": "/extra", "value": extra},
	}
	if rb.Owner != "" {
		patch = append(patch, map[string]any{"op": "replace", "path": "/owner", "value": rb.Owner})
	}
	var out runbooks.Runbook
	_, err := s.sc.Patch(ctx, s.sc.ServiceURL("runbooks", id), patch, &out, &gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}})
	if err != nil {
		return lifecycle.Runbook{}, apiError("update runbook "+rb.Name, err)
	}
	return runbookOf(&out), nil
}

// DeleteRunbook deletes runbook id (gone already is no error).
func (s *FleetStore) DeleteRunbook(ctx context.Context, id string) error {
	if err := s.require(lifecycle.FeatureRunbooks, "baremetal_runbook"); err != nil {
		return err
	}
	err := runbooks.Delete(ctx, s.sc, id).ExtractErr()
	if err != nil && !isNotFound(err) {
		return apiError("delete runbook "+id, err)
	}
	return nil
}

func wireRunbookSteps(steps []lifecycle.RunbookStep) []runbooks.Step {
	out := make([]runbooks.Step, len(steps))
	for i, st := range steps {
		args := st.Args
		if args == nil {
			args = map[string]any{}
		}
		out[i] = runbooks.Step{Interface: nodes.StepInterface(st.Interface), Step: st.Step, Args: args, Order: st.Order}
	}
	return out
}

func runbookOf(rb *runbooks.Runbook) lifecycle.Runbook {
	out := lifecycle.Runbook{ID: rb.UUID, Name: rb.Name, Public: rb.Public, Owner: rb.Owner, Extra: stringMap(rb.Extra)}
	for _, st := range rb.Steps {
		out.Steps = append(out.Steps, lifecycle.RunbookStep{Interface: string(st.Interface), Step: st.Step, Args: st.Args, Order: st.Order})
	}
	return out
}

// anyMap is m as a JSON object's map (nil when empty).
func anyMap(m map[string]string) map[string]any {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// stringMap is a JSON object's map with its values as strings (a string as
// it is, anything else as JSON); nil when empty.
func stringMap(m map[string]any) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			b = []byte(fmt.Sprint(v))
		}
		out[k] = string(b)
	}
	return out
}
