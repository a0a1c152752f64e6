package ironic

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Runbooks and inspection rules (FleetStore) against the fake Ironic, and
// runbooks run on a host by the host actions.

func fleetOnFake(t *testing.T, mv string) (*FleetStore, *ironictest.Server) {
	t.Helper()
	conn, srv := fakeAt(t, mv)
	srv.ResetRequests()
	return NewFleetStore(conn.Client, conn.Features()), srv
}

func TestFakeRunbookCRUD(t *testing.T) {
	ctx := context.Background()
	s, srv := fleetOnFake(t, "1.96")
	rb := lifecycle.Runbook{Name: "CUSTOM_BIOS_RESET", Extra: map[string]string{"team": "infra"}, Steps: []lifecycle.RunbookStep{
		{Interface: "bios", Step: "factory_reset", Order: 0},
		{Interface: "bios", Step: "apply_configuration", Order: 1, Args: map[string]any{"settings": []any{map[string]any{"name": "A", "value": "1"}}}},
	}}
	got, err := s.CreateRunbook(ctx, rb)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID == "" || got.Name != rb.Name || len(got.Steps) != 2 || got.Steps[1].Order != 1 || got.Extra["team"] != "infra" || got.Public {
		t.Fatalf("created %+v", got)
	}
	if _, err := s.CreateRunbook(ctx, rb); err == nil || !strings.Contains(err.Error(), "HTTP 409") {
		t.Errorf("second create of the name: %v", err)
	}
	byName, ok, err := s.Runbook(ctx, rb.Name)
	if err != nil || !ok || byName.ID != got.ID {
		t.Fatalf("read by name: %+v %t %v", byName, ok, err)
	}

	rb.Name, rb.Owner, rb.Extra = "CUSTOM_BIOS_RESET_V2", "project-a", nil
	rb.Steps = rb.Steps[:1]
	upd, err := s.UpdateRunbook(ctx, got.ID, rb)
	if err != nil {
		t.Fatal(err)
	}
	if upd.Name != "CUSTOM_BIOS_RESET_V2" || upd.Owner != "project-a" || len(upd.Steps) != 1 || len(upd.Extra) != 0 {
		t.Errorf("updated %+v", upd)
	}
	// Going public drops the owner (Ironic clears it when public is
	// patched; an owner sent along would be refused).
	rb.Owner, rb.Public = "", true
	if upd, err = s.UpdateRunbook(ctx, got.ID, rb); err != nil || !upd.Public || upd.Owner != "" {
		t.Errorf("made public: %+v, %v", upd, err)
	}
	if err := s.DeleteRunbook(ctx, got.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Runbook(ctx, got.ID); ok || err != nil {
		t.Errorf("after delete: found %t, %v", ok, err)
	}
	if err := s.DeleteRunbook(ctx, got.ID); err != nil {
		t.Errorf("delete of a deleted runbook: %v", err)
	}
	if len(srv.Runbooks()) != 0 {
		t.Errorf("fake keeps %+v", srv.Runbooks())
	}
}

func TestFakeFleetNeedsItsMicroversion(t *testing.T) {
	s, _ := fleetOnFake(t, "1.91")
	_, err := s.CreateRunbook(context.Background(), lifecycle.Runbook{Name: "CUSTOM_X"})
	var fe *lifecycle.FeatureError
	if !errors.As(err, &fe) || fe.Feature != lifecycle.FeatureRunbooks ||
		err.Error() != "baremetal_runbook needs Ironic API microversion 1.92 or later, but this Ironic's maximum API microversion is 1.91" {
		t.Errorf("runbook at 1.91: %v", err)
	}
	s, srv := fleetOnFake(t, "1.95")
	_, _, err = s.InspectionRule(context.Background(), "00000000-0000-4000-8000-000000000001")
	if !errors.As(err, &fe) || fe.Feature != lifecycle.FeatureInspectionRules {
		t.Errorf("inspection rule at 1.95: %v", err)
	}
	if len(srv.Calls()) != 0 {
		t.Errorf("sent %q", srv.Calls())
	}
}

func TestFakeInspectionRuleCRUD(t *testing.T) {
	ctx := context.Background()
	s, srv := fleetOnFake(t, "1.96")
	r := lifecycle.InspectionRule{
		Description: "big memory", Priority: 10,
		Conditions: []lifecycle.RuleCondition{
			{Op: "matches", Args: map[string]any{"value": "{inventory[memory][physical_mb]}", "regex": "^[0-9]{6,}$"}},
			{Op: "!is-empty", Args: []any{"{inventory[cpu][architecture]}"}, Loop: []any{"a", "b"}, Multiple: "all"},
		},
		Actions: []lifecycle.RuleAction{
			{Op: "add-trait", Args: map[string]any{"name": "CUSTOM_BIG_MEM"}},
			{Op: "set-attribute", Args: map[string]any{"path": "resource_class", "value": "big-mem"}},
		},
	}
	got, err := s.CreateInspectionRule(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	r.ID, r.Phase = got.ID, "main"
	if !reflect.DeepEqual(got, r) {
		t.Fatalf("created\n %+v\nwant\n %+v", got, r)
	}
	read, ok, err := s.InspectionRule(ctx, got.ID)
	if err != nil || !ok || !reflect.DeepEqual(read, r) {
		t.Fatalf("read %+v %t %v", read, ok, err)
	}
	// Ironic refuses what its validation refuses, with its message.
	bad := r
	bad.Actions = []lifecycle.RuleAction{{Op: "set-traits", Args: []any{}}}
	if _, err := s.CreateInspectionRule(ctx, bad); err == nil || !strings.Contains(err.Error(), "Unsupported action operator: set-traits") {
		t.Errorf("bad action: %v", err)
	}

	// Made sensitive: its conditions and actions no longer read back, and
	// it cannot be made non-sensitive again.
	r.Sensitive, r.Priority, r.Description = true, 20, ""
	upd, err := s.UpdateInspectionRule(ctx, got.ID, r)
	if err != nil {
		t.Fatal(err)
	}
	if !upd.Sensitive || upd.Priority != 20 || upd.Description != "" || upd.Conditions != nil || upd.Actions != nil {
		t.Errorf("updated %+v", upd)
	}
	if kept := srv.InspectionRules(); len(kept) != 1 || len(kept[0].Actions) != 2 || kept[0].Description != nil {
		t.Errorf("fake keeps %+v", kept)
	}
	patch := `"path":"/sensitive"`
	for _, req := range srv.Requests() {
		if req.Method == http.MethodPatch && !strings.Contains(req.Body, patch) {
			t.Errorf("the patch does not make it sensitive: %s", req.Body)
		}
	}
	if err := s.DeleteInspectionRule(ctx, got.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.InspectionRule(ctx, got.ID); ok || err != nil {
		t.Errorf("after delete: %t %v", ok, err)
	}
	if _, ok, err := s.InspectionRule(ctx, "not-a-uuid"); ok || err != nil {
		t.Errorf("a name: %t %v", ok, err)
	}
}

// runbookRig is a fake Ironic at 1.96 with node act-1 in provision state
// ps carrying traits, and runbook CUSTOM_FW on it.
func runbookRig(t *testing.T, ps string, traits ...string) (*lifecycle.Machine, *ironictest.Server, string) {
	t.Helper()
	return runbookRigAt(t, "1.96", ps, traits...)
}

func runbookRigAt(t *testing.T, mv, ps string, traits ...string) (*lifecycle.Machine, *ironictest.Server, string) {
	t.Helper()
	// The connection at the provider's newest (1.96), the server's
	// maximum mv.
	srv := ironictest.New(t)
	srv.MaxMicroversion = mv
	p := NewProvisioner(fwClient(t, srv, "1.96"), nil, WithJitter(0, nil), WithServerMaxMicroversion(mv))
	id := srv.AddNode(nodesNode("act-1", ps, ""))
	srv.UpdateNode(id, func(n *nodes.Node) {
		n.PowerState = "power on"
		n.Traits = traits
		if ps == "active" {
			n.InstanceInfo = map[string]any{"image_source": "http://img/a.qcow2"}
		}
	})
	conn, _ := fleetOnFakeServer(t, srv)
	if _, err := conn.CreateRunbook(context.Background(), lifecycle.Runbook{Name: "CUSTOM_FW", Steps: []lifecycle.RunbookStep{
		{Interface: "bios", Step: "apply_configuration", Order: 0, Args: map[string]any{"settings": []any{}}},
	}}); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	return &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}, srv, id
}

func fleetOnFakeServer(t *testing.T, srv *ironictest.Server) (*FleetStore, *ironictest.Server) {
	t.Helper()
	return NewFleetStore(fwClient(t, srv, "1.96"), lifecycle.APIFeatures{}), srv
}

// Ironic 2025.1 (1.96) refuses every runbook through servicing (it passes
// the runbook's disable_ramdisk, which the service verb takes from 1.108
// on): the provider says so, and what to do, before sending anything.
func TestFakeRunbookServiceNeeds1108(t *testing.T) {
	m, srv, _ := runbookRig(t, "active", "CUSTOM_FW")
	// At plan, with what the Ironic in use offers known.
	var se *lifecycle.RunbookServiceError
	err := m.CheckHostRunbook(context.Background(), "act-1", "CUSTOM_FW", lifecycle.APIFeatures{Microversion: "1.96", ServerMax: "1.96"})
	if !errors.As(err, &se) {
		t.Errorf("plan-time check at 1.96: %v", err)
	}
	if err := m.CheckHostRunbook(context.Background(), "act-1", "CUSTOM_FW", lifecycle.APIFeatures{Microversion: "1.96", ServerMax: "1.108"}); err != nil {
		t.Errorf("plan-time check at 1.108: %v", err)
	}
	// At apply.
	err = m.RunHostSteps(context.Background(), lifecycle.ActionRequest{Ref: "act-1"}, []lifecycle.ManualStep{{Runbook: "CUSTOM_FW"}})
	if err == nil || !strings.Contains(err.Error(), "cannot run runbook CUSTOM_FW through servicing") ||
		!strings.Contains(err.Error(), "from microversion 1.108 on") || !strings.Contains(err.Error(), "steps = [...]") {
		t.Errorf("runbook servicing at 1.96: %v", err)
	}
	if srv.Count(http.MethodPut, "/states/provision") != 0 {
		t.Errorf("wrote %q", srv.Calls())
	}
}

// From 1.108 on the service verb with the runbook goes at 1.108, that one
// request: the connection stays at the provider's newest.
func TestFakeRunbookServicesAProvisionedHost(t *testing.T) {
	m, srv, id := runbookRigAt(t, "1.108", "active", "CUSTOM_FW")
	var said []string
	req := lifecycle.ActionRequest{Ref: "act-1", Progress: func(s string) { said = append(said, s) }}
	if err := m.RunHostSteps(context.Background(), req, []lifecycle.ManualStep{{Runbook: "CUSTOM_FW"}}); err != nil {
		t.Fatal(err)
	}
	var body, mv string
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPut && strings.HasSuffix(r.Path, "/states/provision") {
			body, mv = r.Body, r.Microversion
		}
	}
	if mv != "1.108" {
		t.Errorf("the service verb went at %q, want 1.108", mv)
	}
	if !strings.Contains(body, `"target":"service"`) || !strings.Contains(body, `"runbook":"CUSTOM_FW"`) || strings.Contains(body, "service_steps") {
		t.Errorf("provision body %s", body)
	}
	if got := srv.Steps(id); len(got) != 1 || got[0][0]["step"] != "apply_configuration" {
		t.Errorf("steps run %v", got)
	}
	if n := srv.MustNode(id); n.ProvisionState != "active" {
		t.Errorf("node %q after servicing", n.ProvisionState)
	}
	if all := strings.Join(said, "\n"); !strings.Contains(all, "servicing the provisioned host with runbook CUSTOM_FW") {
		t.Errorf("progress %q", said)
	}
}

func TestFakeRunbookCleansAnAvailableHost(t *testing.T) {
	m, srv, id := runbookRig(t, "available", "CUSTOM_FW", "CUSTOM_OTHER")
	if err := m.RunHostSteps(context.Background(), lifecycle.ActionRequest{Ref: "act-1"}, []lifecycle.ManualStep{{Runbook: "CUSTOM_FW"}}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Steps(id); len(got) != 1 || got[0][0]["interface"] != "bios" {
		t.Errorf("clean steps %v; calls %q", got, srv.Calls())
	}
	if n := srv.MustNode(id); n.ProvisionState != "available" {
		t.Errorf("node %q after the runbook", n.ProvisionState)
	}
}

func TestFakeRunbookRefusedWithoutTheTrait(t *testing.T) {
	m, srv, _ := runbookRig(t, "active", "CUSTOM_OTHER")
	err := m.RunHostSteps(context.Background(), lifecycle.ActionRequest{Ref: "act-1"}, []lifecycle.ManualStep{{Runbook: "CUSTOM_FW"}})
	if err == nil || !strings.Contains(err.Error(), `Add "CUSTOM_FW" to the traits of its baremetal_host`) ||
		!strings.Contains(err.Error(), "its traits: CUSTOM_OTHER") {
		t.Errorf("no trait: %v", err)
	}
	if srv.Count(http.MethodPut, "/states/provision") != 0 {
		t.Errorf("wrote %q", srv.Calls())
	}
	api := lifecycle.APIFeatures{Microversion: "1.96", ServerMax: "1.108"}
	var te *lifecycle.RunbookTraitError
	if err := m.CheckHostRunbook(context.Background(), "act-1", "CUSTOM_FW", api); !errors.As(err, &te) {
		t.Errorf("the plan-time check of a host without the trait: %v", err)
	}
	if err := m.CheckHostRunbook(context.Background(), "no-such-host", "CUSTOM_FW", api); err != nil {
		t.Errorf("a host not known yet is for the apply: %v", err)
	}
	// Ironic itself refuses it too (a trait removed between the check and
	// the verb), and the fake answers as Ironic does.
	sc := fwClient(t, srv, "1.96")
	err = nodes.ChangeProvisionState(context.Background(), sc, "act-1", nodes.ProvisionStateOpts{Target: nodes.TargetService, Runbook: "CUSTOM_FW"}).ExtractErr()
	if err == nil || !strings.Contains(ironicError(err), "HTTP 400: This runbook has not been approved for use on this node") {
		t.Errorf("Ironic's answer: %v", err)
	}
}
