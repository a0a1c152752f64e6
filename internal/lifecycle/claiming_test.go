package lifecycle_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle/lifecycletest"
)

func summary(name, class string, labels map[string]string) lifecycle.HostSummary {
	return lifecycle.HostSummary{
		Observation: lifecycle.Observation{Exists: true, ID: "uuid-" + name, Name: name, State: lifecycle.StateAvailable,
			ProvisionState: "available", Labels: labels, ResourceClass: class},
		Hardware: &lifecycle.HardwareDetails{CPUCount: 8, RAMMebibytes: 16384},
	}
}

func TestClaimHost(t *testing.T) {
	zoneA := map[string]string{"zone": "a"}
	cases := []struct {
		name     string
		hosts    []lifecycle.HostSummary
		before   map[string]lifecycle.Allocation // existing allocations by name
		sel      lifecycle.Selector
		fault    func(*lifecycletest.Catalog)
		wantHost string // host name claimed
		wantRC   string // resource class asked of Ironic
		wantCand []string
		noClaim  bool   // no allocation may be created
		errSum   string // ClaimError summary
		errText  string
	}{
		{name: "first matching host by name", hosts: []lifecycle.HostSummary{summary("b", "gold", zoneA), summary("a", "gold", zoneA)},
			wantHost: "a", wantRC: "gold", wantCand: []string{"uuid-a", "uuid-b"}},
		{name: "labels filter", hosts: []lifecycle.HostSummary{summary("a", "gold", nil), summary("b", "gold", zoneA)},
			sel: lifecycle.Selector{MatchLabels: zoneA}, wantHost: "b", wantRC: "gold", wantCand: []string{"uuid-b"}},
		{name: "mixed classes: none inferred", hosts: []lifecycle.HostSummary{summary("a", "gold", nil), summary("b", "silver", nil)},
			wantHost: "a", wantRC: "", wantCand: []string{"uuid-a", "uuid-b"}},
		{name: "the selector's class wins", hosts: []lifecycle.HostSummary{summary("a", "gold", nil), summary("b", "silver", nil)},
			sel: lifecycle.Selector{ResourceClass: "silver"}, wantHost: "b", wantRC: "silver", wantCand: []string{"uuid-b"}},
		{name: "interrupted create: its active allocation is kept",
			hosts:   []lifecycle.HostSummary{summary("a", "gold", nil), summary("b", "gold", nil)},
			before:  map[string]lifecycle.Allocation{"claim-1": {ID: "old", Name: "claim-1", NodeID: "uuid-b", State: "active"}},
			noClaim: true, wantHost: "b"},
		{name: "allocation of its own in error: its host is a candidate again",
			hosts:    []lifecycle.HostSummary{withAlloc(summary("a", "gold", nil), "old")},
			before:   map[string]lifecycle.Allocation{"claim-1": {ID: "old", Name: "claim-1", State: "error"}},
			wantHost: "a", wantRC: "gold", wantCand: []string{"uuid-a"}},
		{name: "no match", hosts: []lifecycle.HostSummary{summary("a", "gold", nil)}, sel: lifecycle.Selector{MatchLabels: zoneA},
			noClaim: true, errSum: "No host matches the claim", errText: "1 host"},
		{name: "everything taken meanwhile", hosts: []lifecycle.HostSummary{summary("a", "gold", nil), summary("b", "gold", nil)},
			before: map[string]lifecycle.Allocation{"other": {ID: "x", Name: "other", NodeID: "uuid-a", State: "active"},
				"other2": {ID: "y", Name: "other2", NodeID: "uuid-b", State: "active"}},
			errSum: "No host could be claimed", errText: "2 hosts matched the claim (a, b)", wantRC: "gold"},
		{name: "listing fails", hosts: []lifecycle.HostSummary{summary("a", "gold", nil)}, fault: func(c *lifecycletest.Catalog) { c.HostsErr = errors.New("503") },
			noClaim: true, errSum: "Claiming a host for claim-1", errText: "listing hosts: 503"},
		{name: "reading the allocation fails", fault: func(c *lifecycletest.Catalog) { c.AllocationErr = errors.New("503") },
			noClaim: true, errSum: "Claiming a host for claim-1", errText: "reading allocation claim-1: 503"},
		{name: "claim fails", hosts: []lifecycle.HostSummary{summary("a", "gold", nil)}, fault: func(c *lifecycletest.Catalog) { c.ClaimErr = errors.New("boom") },
			errSum: "Claiming a host for claim-1", errText: "boom", wantRC: "gold", wantCand: []string{"uuid-a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cat := lifecycletest.NewCatalog(c.hosts...)
			for k, v := range c.before {
				cat.Allocations[k] = v
			}
			if c.fault != nil {
				c.fault(cat)
			}
			got, err := lifecycle.ClaimHost(context.Background(), cat, nil,
				lifecycle.HostClaimRequest{Name: "claim-1", Selector: c.sel})
			if c.noClaim && len(cat.Claims) > 0 {
				t.Errorf("allocations created: %+v", cat.Claims)
			}
			if c.errSum != "" {
				var ce *lifecycle.ClaimError
				if !errors.As(err, &ce) || ce.Summary != c.errSum || !strings.Contains(ce.Detail, c.errText) {
					t.Fatalf("err = %v, want %q: %q", err, c.errSum, c.errText)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if got.HostName != c.wantHost || got.NodeID != "uuid-"+c.wantHost || got.ID == "" {
				t.Errorf("claimed %+v, want host %q", got, c.wantHost)
			}
			if len(cat.Claims) > 0 {
				req := cat.Claims[0]
				if req.Name != "claim-1" || req.ResourceClass != c.wantRC || req.Extra["claimed_by"] == "" ||
					(c.wantCand != nil && strings.Join(req.Candidates, ",") != strings.Join(c.wantCand, ",")) {
					t.Errorf("claim request %+v, want class %q, candidates %v", req, c.wantRC, c.wantCand)
				}
			}
		})
	}
}

func withAlloc(h lifecycle.HostSummary, id string) lifecycle.HostSummary {
	h.AllocationID = id
	return h
}

func TestRefreshAndImportClaim(t *testing.T) {
	cat := lifecycletest.NewCatalog(summary("a", "gold", nil), summary("b", "gold", nil))
	cat.Allocations["c1"] = lifecycle.Allocation{ID: "alloc-1", Name: "c1", NodeID: "uuid-a", State: "active"}
	cat.Allocations["c2"] = lifecycle.Allocation{ID: "alloc-2", Name: "c2", State: "error", LastError: "no nodes"}
	ctx := context.Background()
	for _, c := range []struct {
		name                   string
		alloc, knownID, knownN string
		ok                     bool
		wantName               string
	}{
		{"known host: no lookup", "alloc-1", "uuid-a", "cached", true, "cached"},
		{"host changed: name read", "alloc-1", "uuid-b", "b", true, "a"},
		{"name unknown: read", "alloc-1", "uuid-a", "", true, "a"},
		{"allocation holds no host", "alloc-2", "", "", false, ""},
		{"allocation gone", "alloc-9", "", "", false, ""},
	} {
		got, ok, err := lifecycle.RefreshClaim(ctx, cat, nil, c.alloc, c.knownID, c.knownN)
		if err != nil || ok != c.ok || got.HostName != c.wantName {
			t.Errorf("%s: %+v ok %v err %v; want ok %v, name %q", c.name, got, ok, err, c.ok, c.wantName)
		}
	}
	if got, err := lifecycle.ImportClaim(ctx, cat, nil, "c1"); err != nil || got.ID != "alloc-1" || got.HostName != "a" {
		t.Errorf("import by name: %+v %v", got, err)
	}
	if _, err := lifecycle.ImportClaim(ctx, cat, nil, "c2"); err == nil || !strings.Contains(err.Error(), `holds no host (state "error", last_error "no nodes")`) {
		t.Errorf("import of an allocation in error: %v", err)
	}
	if _, err := lifecycle.ImportClaim(ctx, cat, nil, "nope"); err == nil || !strings.Contains(err.Error(), "no Ironic allocation") {
		t.Errorf("import of nothing: %v", err)
	}
	cat.AllocationErr = errors.New("503")
	if _, _, err := lifecycle.RefreshClaim(ctx, cat, nil, "alloc-1", "", ""); err == nil {
		t.Error("a failed read refreshed")
	}
}
