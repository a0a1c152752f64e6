package resources

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// This file is baremetal_runbook: an Ironic runbook (API 1.92+), a named
// list of clean or service steps that the baremetal_host_steps action runs
// on a host by name.

type runbookResource struct{ base }

type runbookModel struct {
	ID     types.String       `tfsdk:"id"`
	Name   types.String       `tfsdk:"name"`
	Steps  []runbookStepModel `tfsdk:"steps"`
	Public types.Bool         `tfsdk:"public"`
	Owner  types.String       `tfsdk:"owner"`
	Extra  types.Map          `tfsdk:"extra"`
}

type runbookStepModel struct {
	Interface types.String `tfsdk:"interface"`
	Step      types.String `tfsdk:"step"`
	Args      types.String `tfsdk:"args"`
	Order     types.Int64  `tfsdk:"order"`
}

func (r *runbookResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "An Ironic runbook (Ironic API 1.92 or later, Ironic 2025.1): a named list of clean or service steps that " +
			"the `baremetal_host_steps` action runs on a host by name (`runbook = baremetal_runbook.x.name`): as manual cleaning " +
			"on an available or manageable host, as servicing on a deployed one. Ironic runs a runbook only on a node that " +
			"carries the runbook's name as a trait: add the name to the host's `traits` to approve the runbook for it. " +
			"The name and steps are checked at `terraform validate` (steps as `baremetal_host_steps` checks them, and the " +
			"interfaces a runbook step takes). Import with the runbook's UUID or name.",
		Attributes: map[string]schema.Attribute{
			"id": keptString("The runbook's Ironic UUID."),
			"name": schema.StringAttribute{
				Required: true,
				Description: "The runbook's name, unique in the Ironic: a custom trait name, `CUSTOM_` and upper-case letters, " +
					"digits and `_` (e.g. `CUSTOM_FIRMWARE_BASELINE`). A host runs the runbook only when its `traits` include " +
					"this name. Changed in place.",
				Validators: []validator.String{validators.RunbookName()},
			},
			"steps": schema.ListNestedAttribute{
				Required: true,
				Description: "The steps, at least one; Ironic runs them by `order`, lowest first. Each interface and step " +
					"at most once.",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"interface": schema.StringAttribute{
						Required: true,
						Description: "The driver interface the step belongs to: one of " +
							strings.Join(lifecycle.RunbookInterfaces, ", ") + ".",
						Validators: []validator.String{validators.RunbookInterface()},
					},
					"step": schema.StringAttribute{
						Required:    true,
						Description: "The step's name, as Ironic lists it for the node (e.g. `apply_configuration`, `update`).",
						Validators:  []validator.String{validators.StepName()},
					},
					"args": schema.StringAttribute{
						Optional: true,
						Description: "The step's arguments, a JSON object (`jsonencode({ ... })`); none when unset. Ironic " +
							"masks arguments that look like passwords when it answers, so those are not read back.",
						Validators: []validator.String{validators.StepArgs()},
					},
					"order": schema.Int64Attribute{
						Optional: true, Computed: true,
						Description: "Where the step runs among the runbook's steps, lowest first (0 or more). Unset, the step's " +
							"index in `steps` is written, and read back.",
						Validators: []validator.Int64{int64validator.AtLeast(0)},
					},
				}},
			},
			"public": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description: "Whether every project of a multi-tenant Ironic may use the runbook (not with `owner`). Default false.",
			},
			"owner": schema.StringAttribute{
				Optional:    true,
				Description: "The project that owns the runbook, in a multi-tenant Ironic (not with `public`).",
			},
			"extra": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Free-form metadata Ironic keeps with the runbook.",
			},
		},
	}
}

// ValidateConfig checks the steps as a whole (order, duplicates) and
// public with owner, once they are known; the attributes' validators check
// each name.
func (r *runbookResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m runbookModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	if m.Public.ValueBool() && m.Owner.ValueString() != "" {
		resp.Diagnostics.AddAttributeError(path.Root("owner"), "Invalid owner", "A public runbook has no owner: set public or owner, not both.")
	}
	seen := map[string]int{}
	for i, s := range m.Steps {
		if s.Interface.IsUnknown() || s.Step.IsUnknown() {
			continue
		}
		key := s.Interface.ValueString() + "." + s.Step.ValueString()
		if j, ok := seen[key]; ok {
			resp.Diagnostics.AddAttributeError(path.Root("steps").AtListIndex(i), "Duplicate runbook step",
				fmt.Sprintf("%s is in the runbook twice (steps %d and %d); Ironic takes each interface and step once.", key, j, i))
		}
		seen[key] = i
	}
}

// ModifyPlan refuses at plan a runbook on an Ironic without runbooks.
func (r *runbookResource) ModifyPlan(_ context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	if err := r.clients.API.Require(lifecycle.FeatureRunbooks, "baremetal_runbook"); err != nil {
		resp.Diagnostics.AddError("Runbooks not supported by this Ironic", err.Error())
	}
}

func (b *base) runbookStore(diags *diag.Diagnostics) lifecycle.RunbookStore {
	if b.clients != nil && b.clients.Runbooks != nil {
		return b.clients.Runbooks
	}
	diags.AddError("Provider not configured", "the provider has no Ironic configured; runbooks live in Ironic")
	return nil
}

// runbook is the model as a lifecycle.Runbook.
func (m *runbookModel) runbook(diags *diag.Diagnostics) lifecycle.Runbook {
	rb := lifecycle.Runbook{ID: m.ID.ValueString(), Name: m.Name.ValueString(), Public: m.Public.ValueBool(), Owner: m.Owner.ValueString()}
	for i, s := range m.Steps {
		st := lifecycle.RunbookStep{Interface: s.Interface.ValueString(), Step: s.Step.ValueString(), Order: i}
		if !s.Order.IsNull() && !s.Order.IsUnknown() {
			st.Order = int(s.Order.ValueInt64())
		}
		if raw := s.Args.ValueString(); raw != "" {
			if err := json.Unmarshal([]byte(raw), &st.Args); err != nil {
				diags.AddAttributeError(path.Root("steps").AtListIndex(i).AtName("args"), "Invalid step arguments", err.Error())
			}
		}
		rb.Steps = append(rb.Steps, st)
	}
	if !m.Extra.IsNull() && !m.Extra.IsUnknown() {
		rb.Extra = map[string]string{}
		diags.Append(m.Extra.ElementsAs(context.Background(), &rb.Extra, false)...)
	}
	return rb
}

// set records rb in the model, keeping what the model says the same way
// (its step order, args written another way, masked args, an unset extra
// that is empty).
func (m *runbookModel) set(rb lifecycle.Runbook) {
	m.ID, m.Name, m.Public = types.StringValue(rb.ID), types.StringValue(rb.Name), types.BoolValue(rb.Public)
	m.Owner = tfglue.NullableString(rb.Owner)
	if len(rb.Extra) > 0 || (!m.Extra.IsNull() && len(m.Extra.Elements()) > 0) {
		m.Extra = tfglue.StringMap(rb.Extra)
	} else if m.Extra.IsUnknown() {
		m.Extra = types.MapNull(types.StringType)
	}
	prior := map[string]runbookStepModel{}
	var order []string
	for _, s := range m.Steps {
		key := s.Interface.ValueString() + "." + s.Step.ValueString()
		prior[key] = s
		order = append(order, key)
	}
	got := map[string]lifecycle.RunbookStep{}
	var extra []string
	for _, s := range rb.Steps {
		key := s.Interface + "." + s.Step
		got[key] = s
		if _, ok := prior[key]; !ok {
			extra = append(extra, key)
		}
	}
	var steps []runbookStepModel
	for _, key := range append(order, extra...) {
		s, ok := got[key]
		if !ok {
			continue // gone from Ironic: the plan puts it back
		}
		p, had := prior[key]
		sm := runbookStepModel{Interface: types.StringValue(s.Interface), Step: types.StringValue(s.Step),
			Order: types.Int64Value(int64(s.Order)), Args: types.StringNull()}
		switch {
		case had && masked(s.Args):
			sm.Args = p.Args
		case len(s.Args) == 0 && (!had || p.Args.IsNull()):
		default:
			sm.Args = keepJSON(p.Args, s.Args)
		}
		steps = append(steps, sm)
	}
	m.Steps = steps
}

// masked reports whether Ironic masked some of args ("******").
func masked(args map[string]any) bool {
	b, _ := json.Marshal(args)
	return strings.Contains(string(b), `"******"`)
}

// keepJSON is v as JSON, or prior when prior holds the same value written
// another way (jsonencode's spacing or key order), so that a read does not
// show a change that is none.
func keepJSON(prior types.String, v any) types.String {
	if !prior.IsNull() && !prior.IsUnknown() {
		var p any
		if json.Unmarshal([]byte(prior.ValueString()), &p) == nil {
			vb, _ := json.Marshal(v)
			var vv any
			if json.Unmarshal(vb, &vv) == nil && reflect.DeepEqual(p, vv) {
				return prior
			}
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return types.StringNull()
	}
	return types.StringValue(string(b))
}

func (r *runbookResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan runbookModel
	store, ok := readWith(ctx, req.Plan.Get, &plan, r.runbookStore, &resp.Diagnostics)
	if !ok {
		return
	}
	rb := plan.runbook(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := lifecycle.CheckRunbook(rb); err != nil {
		resp.Diagnostics.AddError("Invalid runbook "+rb.Name, err.Error())
		return
	}
	got, err := store.CreateRunbook(ctx, rb)
	if err != nil {
		resp.Diagnostics.AddError("Creating runbook "+rb.Name, err.Error())
		return
	}
	tflog.Info(ctx, "runbook created", map[string]any{"runbook": got.Name, "id": got.ID})
	plan.set(got)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *runbookResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer identityAfterRead(ctx, req, resp)
	var state runbookModel
	store, ok := readWith(ctx, req.State.Get, &state, r.runbookStore, &resp.Diagnostics)
	if !ok {
		return
	}
	readBack(ctx, resp, &state, "runbook "+state.Name.ValueString(), func() (lifecycle.Runbook, bool, error) {
		return store.Runbook(ctx, state.ID.ValueString())
	}, state.set)
}

// readBack is the end of the Read of a resource kept as one Ironic
// object: get reads the object; one Ironic no longer has leaves the state
// (what names it in the messages), else set records it in m, the state.
func readBack[M, O any](ctx context.Context, resp *resource.ReadResponse, m *M, what string, get func() (O, bool, error), set func(O)) {
	got, found, err := get()
	if err != nil {
		resp.Diagnostics.AddError("Reading "+what, err.Error())
		return
	}
	if !found {
		tflog.Warn(ctx, "the object no longer exists in Ironic; removing it from state", map[string]any{"object": what})
		resp.State.RemoveResource(ctx)
		return
	}
	set(got)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *runbookResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan, state runbookModel
	store, ok := readWith(ctx, req.Plan.Get, &plan, r.runbookStore, &resp.Diagnostics)
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); !ok || resp.Diagnostics.HasError() {
		return
	}
	rb := plan.runbook(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := lifecycle.CheckRunbook(rb); err != nil {
		resp.Diagnostics.AddError("Invalid runbook "+rb.Name, err.Error())
		return
	}
	got, err := store.UpdateRunbook(ctx, state.ID.ValueString(), rb)
	if err != nil {
		resp.Diagnostics.AddError("Updating runbook "+rb.Name, err.Error())
		return
	}
	plan.set(got)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *runbookResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state runbookModel
	store, ok := readWith(ctx, req.State.Get, &state, r.runbookStore, &resp.Diagnostics)
	if !ok {
		return
	}
	if err := store.DeleteRunbook(ctx, state.ID.ValueString()); err != nil {
		resp.Diagnostics.AddError("Deleting runbook "+state.Name.ValueString(), err.Error())
	}
}

// ImportState takes the runbook's UUID or name.
func (r *runbookResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	ref := importRef(ctx, req, &resp.Diagnostics)
	store := r.runbookStore(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	got, found, err := store.Runbook(ctx, ref)
	switch {
	case err != nil:
		resp.Diagnostics.AddError("Importing runbook "+ref, err.Error())
		return
	case !found:
		resp.Diagnostics.AddError("Importing runbook "+ref, fmt.Sprintf("Ironic holds no runbook with the UUID or name %q", ref))
		return
	}
	m := runbookModel{Extra: types.MapNull(types.StringType)}
	m.set(got)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
