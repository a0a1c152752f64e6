package actions_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/provider"
)

// These tests serve the provider in this process, configure it against the
// fake Ironic and call its action RPCs as Terraform 1.14 does
// (ValidateActionConfig at terraform validate, InvokeAction at apply),
// draining each invocation's event stream to its end.

// actionServer is a provider server with the action RPCs.
type actionServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ActionServer
}

// rig is the provider server, configured against a fake Ironic.
type rig struct {
	t       *testing.T
	fake    *ironictest.Server
	srv     actionServer
	schemas *tfprotov6.GetProviderSchemaResponse
}

func clearEnv(t *testing.T) {
	for _, k := range []string{"BAREMETAL_ENDPOINT", "BAREMETAL_AUTH", "BAREMETAL_USERNAME", "BAREMETAL_PASSWORD",
		"BAREMETAL_CACERT_FILE", "BAREMETAL_CLIENT_CERT_FILE", "BAREMETAL_CLIENT_KEY_FILE", "BAREMETAL_INSECURE",
		"BAREMETAL_MICROVERSION", "BAREMETAL_API_WAIT_TIMEOUT", "BAREMETAL_MAX_CONCURRENT_PROVISIONING",
		"BAREMETAL_STALL_TIMEOUT", "OS_CLOUD", "OS_AUTH_URL"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", t.TempDir())
}

// newRig starts a fake Ironic and the provider, unconfigured.
func newRig(t *testing.T) *rig {
	t.Helper()
	clearEnv(t)
	ps, err := providerserver.NewProtocol6WithError(provider.New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	srv, ok := ps.(actionServer)
	if !ok {
		t.Fatalf("the provider server (%T) serves no actions", ps)
	}
	schemas, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || hasError(schemas.Diagnostics) {
		t.Fatalf("GetProviderSchema: %v %v", err, describe(schemas.Diagnostics))
	}
	return &rig{t: t, fake: ironictest.New(t), srv: srv, schemas: schemas}
}

// configure configures the provider against the fake.
func (r *rig) configure() *rig {
	r.t.Helper()
	cfg := object(r.t, r.schemas.Provider.Block, map[string]tftypes.Value{
		"endpoint": tftypes.NewValue(tftypes.String, r.fake.URL),
	})
	resp, err := r.srv.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{
		TerraformVersion: "1.14.9", Config: cfg})
	if err != nil || hasError(resp.Diagnostics) {
		r.t.Fatalf("ConfigureProvider: %v %s", err, describe(resp.Diagnostics))
	}
	return r
}

// node adds node name to the fake in provision state ps and power.
func (r *rig) node(name, ps, power string, edit func(n *nodes.Node)) string {
	id := r.fake.AddNode(nodes.Node{Name: name, Driver: "fake-hardware", ProvisionState: ps, PowerState: power,
		InstanceInfo: map[string]any{"image_source": "http://img/a.qcow2"}})
	if edit != nil {
		r.fake.UpdateNode(id, edit)
	}
	return id
}

// config is the action's configuration: attrs, the rest null.
func (r *rig) config(action string, attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
	r.t.Helper()
	s, ok := r.schemas.ActionSchemas[action]
	if !ok {
		r.t.Fatalf("the provider has no action %s", action)
	}
	return object(r.t, s.Schema.Block, attrs)
}

// validate is terraform validate's ValidateActionConfig.
func (r *rig) validate(action string, attrs map[string]tftypes.Value) []*tfprotov6.Diagnostic {
	r.t.Helper()
	resp, err := r.srv.ValidateActionConfig(context.Background(), &tfprotov6.ValidateActionConfigRequest{
		ActionType: action, Config: r.config(action, attrs)})
	if err != nil {
		r.t.Fatal(err)
	}
	return resp.Diagnostics
}

// invoke plans and invokes the action, drains its events and returns the
// progress messages and the completed event's diagnostics.
func (r *rig) invoke(action string, attrs map[string]tftypes.Value) (progress []string, diags []*tfprotov6.Diagnostic) {
	r.t.Helper()
	cfg := r.config(action, attrs)
	plan, err := r.srv.PlanAction(context.Background(), &tfprotov6.PlanActionRequest{ActionType: action, Config: cfg})
	if err != nil || hasError(plan.Diagnostics) {
		r.t.Fatalf("PlanAction: %v %s", err, describe(plan.Diagnostics))
	}
	resp, err := r.srv.InvokeAction(context.Background(), &tfprotov6.InvokeActionRequest{ActionType: action, Config: cfg})
	if err != nil {
		r.t.Fatal(err)
	}
	completed := false
	for ev := range resp.Events {
		switch e := ev.Type.(type) {
		case tfprotov6.ProgressInvokeActionEventType:
			progress = append(progress, e.Message)
		case tfprotov6.CompletedInvokeActionEventType:
			completed = true
			diags = e.Diagnostics
		}
	}
	if !completed {
		r.t.Fatal("the event stream ended without a completed event")
	}
	r.t.Logf("%s progress:\n  %s", action, strings.Join(progress, "\n  "))
	return progress, diags
}

// powerTargets are the power states asked of the fake, in order.
func (r *rig) powerTargets() []string {
	var out []string
	for _, q := range r.fake.Requests() {
		if q.Method == "PUT" && strings.HasSuffix(q.Path, "/states/power") {
			_, rest, _ := strings.Cut(q.Body, `"target":"`)
			v, _, _ := strings.Cut(rest, `"`)
			out = append(out, v)
		}
	}
	return out
}

func str(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

// object is the block's object value with attrs and every other attribute
// null.
func object(t *testing.T, b *tfprotov6.SchemaBlock, attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	typ := b.ValueType()
	vals := map[string]tftypes.Value{}
	for _, a := range b.Attributes {
		if v, ok := attrs[a.Name]; ok {
			vals[a.Name] = v
		} else {
			vals[a.Name] = tftypes.NewValue(a.ValueType(), nil)
		}
	}
	for name := range attrs {
		if _, ok := vals[name]; !ok {
			t.Fatalf("no attribute %q in the schema", name)
		}
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func hasError(ds []*tfprotov6.Diagnostic) bool {
	return slices.ContainsFunc(ds, func(d *tfprotov6.Diagnostic) bool { return d.Severity == tfprotov6.DiagnosticSeverityError })
}

func describe(ds []*tfprotov6.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Summary + ": " + d.Detail + "\n")
	}
	return b.String()
}

// errorSays fails the test unless ds has an error whose summary and
// detail say each of want.
func errorSays(t *testing.T, ds []*tfprotov6.Diagnostic, want ...string) {
	t.Helper()
	if !hasError(ds) {
		t.Fatalf("no error, want one saying %q", want)
	}
	all := describe(ds)
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("the error does not say %q:\n%s", w, all)
		}
	}
}

func saysAll(t *testing.T, progress []string, want ...string) {
	t.Helper()
	all := strings.Join(progress, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no progress line says %q", w)
		}
	}
}

func TestInvokeReboot(t *testing.T) {
	r := newRig(t).configure()
	r.node("web-1", "active", "power on", nil)
	r.node("web-2", "active", "power on", nil)
	// Busy: Ironic's 409 is retried.
	r.fake.NodeLocked("PUT", "/states/power", 1)
	progress, diags := r.invoke("baremetal_host_reboot", map[string]tftypes.Value{"host_id": str("web-1")})
	if hasError(diags) {
		t.Fatal(describe(diags))
	}
	if got, want := slices.Compact(r.powerTargets()), []string{"soft power off", "power on"}; !slices.Equal(got, want) {
		t.Errorf("power targets %q, want %q", got, want)
	}
	saysAll(t, progress, "web-1: soft reboot of the provisioned host requested", "web-1: rebooted")
	if n := r.fake.MustNode("web-1"); n.ProvisionState != "active" || n.PowerState != "power on" {
		t.Errorf("node %q %q", n.ProvisionState, n.PowerState)
	}

	// A failure names the host, its state and the verb.
	r.fake.ResetRequests()
	r.fake.SoftPowerOffUnsupported = true
	r.fake.AddFault(ironictest.Fault{Method: "PUT", PathSuffix: "/states/power", Status: 500, Message: "conductor on fire"})
	_, diags = r.invoke("baremetal_host_reboot", map[string]tftypes.Value{"host_id": str("web-2"), "mode": str("hard"), "timeout": str("2s")})
	errorSays(t, diags, "Rebooting host web-2 failed", `host "web-2"`, `state "provisioned"`, `verb "power off"`)

	// A host that is not there.
	_, diags = r.invoke("baremetal_host_reboot", map[string]tftypes.Value{"host_id": str("nope")})
	errorSays(t, diags, `no Ironic node has the UUID or name "nope"`)
}

func TestInvokeRefusesDetached(t *testing.T) {
	r := newRig(t).configure()
	r.node("web-1", "active", "power on", func(n *nodes.Node) {
		n.Maintenance, n.MaintenanceReason = true, lifecycle.DetachReason
	})
	for action, attrs := range map[string]map[string]tftypes.Value{
		"baremetal_host_reboot":    {},
		"baremetal_host_power":     {"power": str("off")},
		"baremetal_host_boot_once": {"device": str("pxe")},
		"baremetal_host_inspect":   {},
	} {
		attrs["host_id"] = str("web-1")
		_, diags := r.invoke(action, attrs)
		errorSays(t, diags, "Host web-1 is detached", "re-attach it first")
	}
	if calls := r.fake.Calls(); len(calls) != 0 {
		t.Errorf("actions on a detached host wrote %q", calls)
	}
}

func TestInvokePower(t *testing.T) {
	r := newRig(t).configure()
	r.node("web-1", "available", "power on", func(n *nodes.Node) {
		n.Extra = map[string]any{lifecycle.OnlineSettingKey: "true"}
	})
	_, diags := r.invoke("baremetal_host_power", map[string]tftypes.Value{"host_id": str("web-1"), "power": str("off")})
	errorSays(t, diags, "Power off of host web-1 failed", "keeps it powered on (online = true)", `state "available"`, `verb "power off"`)
	progress, diags := r.invoke("baremetal_host_power", map[string]tftypes.Value{"host_id": str("web-1"), "power": str("cycle")})
	if hasError(diags) {
		t.Fatal(describe(diags))
	}
	if got, want := r.powerTargets(), []string{"power off", "power on"}; !slices.Equal(got, want) {
		t.Errorf("power targets %q, want %q (cycle is hard by default)", got, want)
	}
	saysAll(t, progress, "power cycle requested (hard power off, then on)", "web-1: powered on")
}

func TestInvokeBootOnce(t *testing.T) {
	r := newRig(t).configure()
	id := r.node("web-1", "active", "power on", nil)
	progress, diags := r.invoke("baremetal_host_boot_once", map[string]tftypes.Value{"host_id": str("web-1"), "device": str("pxe"), "mode": str("hard")})
	if hasError(diags) {
		t.Fatal(describe(diags))
	}
	if got := r.fake.BootDevices(id); len(got) != 1 || got[0].Device != "pxe" || got[0].Persistent {
		t.Errorf("boot devices %+v", got)
	}
	if got, want := r.powerTargets(), []string{"power off", "power on"}; !slices.Equal(got, want) {
		t.Errorf("power targets %q, want %q", got, want)
	}
	saysAll(t, progress, "setting the next boot device to pxe (once)", "booting from pxe")
}

func TestInvokeInspectAndSteps(t *testing.T) {
	r := newRig(t).configure()
	id := r.node("web-1", "available", "power off", nil)
	progress, diags := r.invoke("baremetal_host_inspect", map[string]tftypes.Value{"host_id": str("web-1")})
	if hasError(diags) {
		t.Fatal(describe(diags))
	}
	saysAll(t, progress, "inspection requested", "available -> inspecting", "web-1: inspected, available")
	if n := r.fake.MustNode(id); n.InspectionFinishedAt == nil || n.ProvisionState != "available" {
		t.Errorf("node %q inspected at %v", n.ProvisionState, n.InspectionFinishedAt)
	}

	stepType := r.schemas.ActionSchemas["baremetal_host_steps"].Schema.Block.Attributes
	var listType tftypes.Type
	for _, a := range stepType {
		if a.Name == "steps" {
			listType = a.ValueType()
		}
	}
	objType := listType.(tftypes.List).ElementType
	steps := tftypes.NewValue(listType, []tftypes.Value{
		tftypes.NewValue(objType, map[string]tftypes.Value{
			"interface": str("deploy"), "step": str("erase_devices_metadata"), "args": tftypes.NewValue(tftypes.String, nil)}),
		tftypes.NewValue(objType, map[string]tftypes.Value{
			"interface": str("bios"), "step": str("apply_configuration"), "args": str(`{"settings":[{"name":"ProcTurboMode","value":"Disabled"}]}`)}),
	})
	progress, diags = r.invoke("baremetal_host_steps", map[string]tftypes.Value{"host_id": str("web-1"), "steps": steps})
	if hasError(diags) {
		t.Fatal(describe(diags))
	}
	saysAll(t, progress, "manual cleaning of the available host with deploy.erase_devices_metadata, bios.apply_configuration", "steps done")
	got := r.fake.Steps(id)
	if len(got) != 1 || len(got[0]) != 2 || got[0][1]["args"].(map[string]any)["settings"] == nil {
		t.Errorf("steps sent %v", got)
	}

	// A failed clean step names last_error.
	r.fake.FailNext(id, "erase failed on /dev/sdb")
	_, diags = r.invoke("baremetal_host_steps", map[string]tftypes.Value{"host_id": str("web-1"), "steps": steps})
	errorSays(t, diags, "Running steps on host web-1 failed", `verb "clean"`, "last_error: erase failed on /dev/sdb")
}

// The progress of a long wait names the Ironic step the node runs (the
// fake keeps the cleaning going for a few reads, showing its clean_step).
func TestInvokeStepsProgressNamesTheStep(t *testing.T) {
	r := newRig(t).configure()
	r.fake.WorkingReads = 3
	r.node("web-1", "manageable", "power off", nil)
	listType := r.schemas.ActionSchemas["baremetal_host_steps"].Schema.ValueType().(tftypes.Object).AttributeTypes["steps"]
	objType := listType.(tftypes.List).ElementType
	steps := tftypes.NewValue(listType, []tftypes.Value{tftypes.NewValue(objType, map[string]tftypes.Value{
		"interface": str("raid"), "step": str("delete_configuration"), "args": tftypes.NewValue(tftypes.String, nil)})})
	progress, diags := r.invoke("baremetal_host_steps", map[string]tftypes.Value{"host_id": str("web-1"), "steps": steps})
	if hasError(diags) {
		t.Fatal(describe(diags))
	}
	saysAll(t, progress, "waiting (Ironic clean, provision state cleaning, step raid.delete_configuration for ")
}

func TestInvokeBMCReset(t *testing.T) {
	r := newRig(t).configure()
	bmcSim, err := sim.Start(sim.Options{}, 1, "admin", "pw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bmcSim.Close() })
	r.node("web-1", "active", "power on", nil)
	var bmcAttr *tfprotov6.SchemaAttribute
	for _, a := range r.schemas.ActionSchemas["baremetal_bmc_reset"].Schema.Block.Attributes {
		if a.Name == "bmc" {
			bmcAttr = a
		}
	}
	bmcVal := tftypes.NewValue(bmcAttr.ValueType(), map[string]tftypes.Value{
		"address": str("redfish+" + bmcSim.SystemURL("sys-0")), "username": str("admin"), "password": str("pw"),
		"disable_certificate_verification": tftypes.NewValue(tftypes.Bool, nil),
	})
	progress, diags := r.invoke("baremetal_bmc_reset", map[string]tftypes.Value{"host_id": str("web-1"), "bmc": bmcVal})
	if hasError(diags) {
		t.Fatal(describe(diags))
	}
	st, err := bmcSim.State("sys-0")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.ManagerResets, []string{"GracefulRestart"}) || len(st.Resets) != 0 {
		t.Errorf("manager resets %q, system resets %q", st.ManagerResets, st.Resets)
	}
	saysAll(t, progress, "GracefulRestart of its BMC requested", "the BMC answers again")
	if calls := r.fake.Calls(); len(calls) != 0 {
		t.Errorf("a BMC reset wrote to Ironic: %q", calls)
	}
}

// terraform validate judges the configuration without a configured
// provider.
func TestValidateActionConfig(t *testing.T) {
	r := newRig(t)
	for _, tc := range []struct {
		action string
		attrs  map[string]tftypes.Value
		want   string
	}{
		{"baremetal_host_reboot", map[string]tftypes.Value{"host_id": str("h"), "mode": str("gentle")}, `value must be one of: ["soft" "hard"]`},
		{"baremetal_host_reboot", map[string]tftypes.Value{"host_id": str("h"), "timeout": str("soon")}, `"soon" is not a duration`},
		{"baremetal_host_reboot", map[string]tftypes.Value{"host_id": str("")}, "at least 1"},
		{"baremetal_host_power", map[string]tftypes.Value{"host_id": str("h"), "power": str("reset")}, `"on" "off" "cycle"`},
		{"baremetal_host_boot_once", map[string]tftypes.Value{"host_id": str("h"), "device": str("usb")}, `"pxe" "cd" "disk"`},
		{"baremetal_bmc_reset", map[string]tftypes.Value{"host_id": str("h"), "reset_type": str("PowerCycle")}, `"GracefulRestart"`},
	} {
		diags := r.validate(tc.action, tc.attrs)
		if !strings.Contains(describe(diags), tc.want) {
			t.Errorf("%s %v: diagnostics %q, want one saying %q", tc.action, tc.attrs, describe(diags), tc.want)
		}
	}
	if diags := r.validate("baremetal_host_reboot", map[string]tftypes.Value{"host_id": str("h"), "mode": str("hard"), "timeout": str("5m")}); hasError(diags) {
		t.Errorf("a good configuration: %s", describe(diags))
	}
}
