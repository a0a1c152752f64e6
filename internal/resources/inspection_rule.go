package resources

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// This file is baremetal_inspection_rule: an Ironic inspection rule (API
// 1.96+), applied by Ironic's built-in inspection to every node it
// inspects.

type inspectionRuleResource struct{ base }

type inspectionRuleModel struct {
	ID          types.String         `tfsdk:"id"`
	Description types.String         `tfsdk:"description"`
	Phase       types.String         `tfsdk:"phase"`
	Priority    types.Int64          `tfsdk:"priority"`
	Sensitive   types.Bool           `tfsdk:"sensitive"`
	Conditions  []ruleConditionModel `tfsdk:"conditions"`
	Actions     []ruleActionModel    `tfsdk:"actions"`
}

type ruleConditionModel struct {
	Op       types.String `tfsdk:"op"`
	Args     types.String `tfsdk:"args"`
	Loop     types.String `tfsdk:"loop"`
	Multiple types.String `tfsdk:"multiple"`
}

type ruleActionModel struct {
	Op   types.String `tfsdk:"op"`
	Args types.String `tfsdk:"args"`
	Loop types.String `tfsdk:"loop"`
}

const ruleArgsDoc = "A JSON array (the arguments in order) or object (by name), written with `jsonencode`. Strings may name " +
	"what inspection found with Python format fields: `{inventory[memory][physical_mb]}`, `{inventory[system_vendor][manufacturer]}`, " +
	"`{plugin_data[...]}`, `{node.driver}`, and `{item}` in a loop. Ironic 2025.1 formats the arguments of `is-empty`, `in-net`, " +
	"`matches`, `contains`, `one-of`, `is-none`, `is-true`, `is-false` and of the actions' `value` and `msg`, but the `values` of " +
	"`eq`, `lt` and `gt` only in a loop, and then compares them as strings: compare numbers with `matches` and a regular expression."

func (r *inspectionRuleResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "An Ironic inspection rule (Ironic API 1.96 or later, Ironic 2025.1): conditions on what built-in " +
			"inspection found on a node (its inventory and plugin data) and the actions Ironic takes on the node when they " +
			"all hold: add a trait, set the resource class or a property, set `extra` or a capability, fail the inspection, " +
			"... Ironic applies every rule, highest `priority` first, to each node it inspects with the `agent` inspect " +
			"interface, so hosts are classified without typing each one; `baremetal_host_claim` then selects them by the " +
			"traits and resource class the rules set. Each operator and action name, and their arguments, are checked at " +
			"`terraform validate` against what Ironic 2025.1 accepts. Import with the rule's UUID.",
		Attributes: map[string]schema.Attribute{
			"id": keptString("The rule's Ironic UUID."),
			"description": schema.StringAttribute{
				Optional: true, Description: "What the rule is for (at most 255 characters).",
				Validators: []validator.String{stringvalidator.LengthBetween(1, 255)},
			},
			"phase": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("main"),
				Description: "When in inspection the rule runs: `main` (the one phase of Ironic 2025.1, after the inventory " +
					"is stored). Default `main`.",
				Validators: []validator.String{stringvalidator.OneOf(lifecycle.RulePhases...)},
			},
			"priority": schema.Int64Attribute{
				Optional: true, Computed: true, Default: int64default.StaticInt64(0),
				Description: "The order of the rules, highest first: 0 to 9999. Default 0.",
				Validators:  []validator.Int64{int64validator.Between(0, 9999)},
			},
			"sensitive": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description: "Hide the rule's conditions and actions: Ironic answers them as null on every read (and masks " +
					"passwords in what inspection found only for rules that are not sensitive, by default). The provider " +
					"then keeps them as configured, and cannot see them change behind its back. Ironic cannot make a " +
					"sensitive rule non-sensitive again: setting it back to false replaces the rule. Default false.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplaceIf(unsetSensitive,
					"Ironic cannot make a sensitive rule non-sensitive: the rule is replaced.",
					"Ironic cannot make a sensitive rule non-sensitive: the rule is replaced.")},
			},
			"conditions": schema.ListNestedAttribute{
				Optional: true,
				Description: "The conditions, all of which must hold for the actions to run; none: the actions run on " +
					"every node inspected.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"op": schema.StringAttribute{
						Required: true,
						Description: "The operator, one of Ironic 2025.1's: " + codeList(lifecycle.RuleOperatorNames()) +
							"; a leading `!` inverts it (`!eq`).",
						Validators: []validator.String{validators.RuleOperator()},
					},
					"args": schema.StringAttribute{
						Required: true, Description: "The operator's arguments. " + ruleArgsDoc,
						Validators: []validator.String{validators.JSONArrayOrObject()},
					},
					"loop": schema.StringAttribute{
						Optional: true,
						Description: "Check the condition once for each item of this JSON array (or once for an object), " +
							"the item reachable as `{item}` in the arguments; `multiple` says how the results combine.",
						Validators: []validator.String{validators.JSONArrayOrObject()},
					},
					"multiple": schema.StringAttribute{
						Optional:    true,
						Description: "With `loop`: `any` (Ironic's default), `all`, `first` or `last` of the results must hold.",
						Validators:  []validator.String{stringvalidator.OneOf(lifecycle.RuleMultiples...)},
					},
				}},
			},
			"actions": schema.ListNestedAttribute{
				Required:    true,
				Description: "The actions, at least one, run in this order when the conditions hold.",
				Validators:  []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"op": schema.StringAttribute{
						Required: true,
						Description: "The action, one of Ironic 2025.1's: " + codeList(lifecycle.RuleActionNames()) +
							". `add-trait` takes `name`; `set-attribute` takes `path` (e.g. `resource_class`, " +
							"`properties/cpu_arch`, `extra/rack`) and `value`.",
						Validators: []validator.String{validators.RuleAction()},
					},
					"args": schema.StringAttribute{
						Required: true, Description: "The action's arguments. " + ruleArgsDoc,
						Validators: []validator.String{validators.JSONArrayOrObject()},
					},
					"loop": schema.StringAttribute{
						Optional:    true,
						Description: "Run the action once for each item of this JSON array, the item reachable as `{item}` in the arguments.",
						Validators:  []validator.String{validators.JSONArrayOrObject()},
					},
				}},
			},
		},
	}
}

func codeList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}

// unsetSensitive replaces a rule that goes from sensitive to not.
func unsetSensitive(_ context.Context, req planmodifier.BoolRequest, resp *boolplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = req.StateValue.ValueBool() && !req.PlanValue.IsUnknown() && !req.PlanValue.ValueBool()
}

// ValidateConfig checks each known condition's and action's arguments
// against what its operator or action takes, and that multiple comes with
// a loop (Ironic drops it otherwise).
func (r *inspectionRuleResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m inspectionRuleModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	for i, c := range m.Conditions {
		at := path.Root("conditions").AtListIndex(i)
		if !c.Multiple.IsNull() && c.Loop.IsNull() {
			resp.Diagnostics.AddAttributeError(at.AtName("multiple"), "Invalid "+at.AtName("multiple").String()+": multiple without loop",
				"multiple says how the results of a loop combine: set loop too, or leave multiple out.")
		}
		if !tfglue.Known(c.Op) || !tfglue.Known(c.Args) || lifecycle.CheckRuleOperator(c.Op.ValueString()) != nil {
			continue
		}
		if args, err := validators.DecodeArrayOrObject(c.Args.ValueString()); err == nil {
			if err := lifecycle.CheckRuleConditionArgs(c.Op.ValueString(), args); err != nil {
				resp.Diagnostics.AddAttributeError(at.AtName("args"), "Invalid "+at.AtName("args").String(), err.Error())
			}
		}
	}
	for i, a := range m.Actions {
		if !tfglue.Known(a.Op) || !tfglue.Known(a.Args) || lifecycle.CheckRuleAction(a.Op.ValueString()) != nil {
			continue
		}
		if args, err := validators.DecodeArrayOrObject(a.Args.ValueString()); err == nil {
			if err := lifecycle.CheckRuleActionArgs(a.Op.ValueString(), args); err != nil {
				at := path.Root("actions").AtListIndex(i).AtName("args")
				resp.Diagnostics.AddAttributeError(at, "Invalid "+at.String(), err.Error())
			}
		}
	}
}

// ModifyPlan refuses at plan a rule on an Ironic without inspection rules.
func (r *inspectionRuleResource) ModifyPlan(_ context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	if err := r.clients.API.Require(lifecycle.FeatureInspectionRules, "baremetal_inspection_rule"); err != nil {
		resp.Diagnostics.AddError("Inspection rules not supported by this Ironic", err.Error())
	}
}

func (b *base) ruleStore(diags *diag.Diagnostics) lifecycle.InspectionRuleStore {
	if b.clients != nil && b.clients.InspectionRules != nil {
		return b.clients.InspectionRules
	}
	diags.AddError("Provider not configured", "the provider has no Ironic configured; inspection rules live in Ironic")
	return nil
}

// rule is the model as a lifecycle.InspectionRule.
func (m *inspectionRuleModel) rule(diags *diag.Diagnostics) lifecycle.InspectionRule {
	r := lifecycle.InspectionRule{ID: m.ID.ValueString(), Description: m.Description.ValueString(), Phase: m.Phase.ValueString(),
		Priority: int(m.Priority.ValueInt64()), Sensitive: m.Sensitive.ValueBool()}
	decode := func(p path.Path, s types.String) any {
		if s.IsNull() || s.IsUnknown() {
			return nil
		}
		v, err := validators.DecodeArrayOrObject(s.ValueString())
		if err != nil {
			diags.AddAttributeError(p, "Invalid JSON", err.Error())
		}
		return v
	}
	for i, c := range m.Conditions {
		at := path.Root("conditions").AtListIndex(i)
		r.Conditions = append(r.Conditions, lifecycle.RuleCondition{Op: c.Op.ValueString(), Args: decode(at.AtName("args"), c.Args),
			Loop: decode(at.AtName("loop"), c.Loop), Multiple: c.Multiple.ValueString()})
	}
	for i, a := range m.Actions {
		at := path.Root("actions").AtListIndex(i)
		r.Actions = append(r.Actions, lifecycle.RuleAction{Op: a.Op.ValueString(), Args: decode(at.AtName("args"), a.Args),
			Loop: decode(at.AtName("loop"), a.Loop)})
	}
	return r
}

// set records r in the model. A sensitive rule reads back without its
// conditions and actions: the model keeps its own. JSON written another
// way keeps the model's text; Ironic's default multiple (any) reads as
// the model's unset one.
func (m *inspectionRuleModel) set(r lifecycle.InspectionRule) {
	m.ID, m.Phase = types.StringValue(r.ID), types.StringValue(r.Phase)
	m.Priority, m.Sensitive = types.Int64Value(int64(r.Priority)), types.BoolValue(r.Sensitive)
	m.Description = tfglue.NullableString(r.Description)
	if r.Sensitive && r.Conditions == nil && r.Actions == nil {
		return
	}
	conds := make([]ruleConditionModel, 0, len(r.Conditions))
	for i, c := range r.Conditions {
		var p ruleConditionModel
		if i < len(m.Conditions) {
			p = m.Conditions[i]
		}
		cm := ruleConditionModel{Op: types.StringValue(c.Op), Args: keepJSON(p.Args, c.Args), Loop: types.StringNull(),
			Multiple: tfglue.NullableString(c.Multiple)}
		if c.Loop != nil {
			cm.Loop = keepJSON(p.Loop, c.Loop)
		}
		if c.Multiple == "any" && p.Multiple.IsNull() && i < len(m.Conditions) {
			cm.Multiple = types.StringNull()
		}
		conds = append(conds, cm)
	}
	if len(conds) == 0 && m.Conditions == nil {
		conds = nil
	}
	m.Conditions = conds
	acts := make([]ruleActionModel, 0, len(r.Actions))
	for i, a := range r.Actions {
		var p ruleActionModel
		if i < len(m.Actions) {
			p = m.Actions[i]
		}
		am := ruleActionModel{Op: types.StringValue(a.Op), Args: keepJSON(p.Args, a.Args), Loop: types.StringNull()}
		if a.Loop != nil {
			am.Loop = keepJSON(p.Loop, a.Loop)
		}
		acts = append(acts, am)
	}
	m.Actions = acts
}

func (r *inspectionRuleResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan inspectionRuleModel
	store, ok := readWith(ctx, req.Plan.Get, &plan, r.ruleStore, &resp.Diagnostics)
	if !ok {
		return
	}
	rule := plan.rule(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := lifecycle.CheckInspectionRule(rule); err != nil {
		resp.Diagnostics.AddError("Invalid inspection rule", err.Error())
		return
	}
	got, err := store.CreateInspectionRule(ctx, rule)
	if err != nil {
		resp.Diagnostics.AddError("Creating inspection rule", err.Error())
		return
	}
	tflog.Info(ctx, "inspection rule created", map[string]any{"id": got.ID})
	plan.set(got)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *inspectionRuleResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer identityAfterRead(ctx, req, resp)
	var state inspectionRuleModel
	store, ok := readWith(ctx, req.State.Get, &state, r.ruleStore, &resp.Diagnostics)
	if !ok {
		return
	}
	readBack(ctx, resp, &state, "inspection rule "+state.ID.ValueString(), func() (lifecycle.InspectionRule, bool, error) {
		return store.InspectionRule(ctx, state.ID.ValueString())
	}, state.set)
}

func (r *inspectionRuleResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan, state inspectionRuleModel
	store, ok := readWith(ctx, req.Plan.Get, &plan, r.ruleStore, &resp.Diagnostics)
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); !ok || resp.Diagnostics.HasError() {
		return
	}
	rule := plan.rule(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := lifecycle.CheckInspectionRule(rule); err != nil {
		resp.Diagnostics.AddError("Invalid inspection rule", err.Error())
		return
	}
	got, err := store.UpdateInspectionRule(ctx, state.ID.ValueString(), rule)
	if err != nil {
		resp.Diagnostics.AddError("Updating inspection rule "+state.ID.ValueString(), err.Error())
		return
	}
	plan.ID = state.ID
	plan.set(got)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *inspectionRuleResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state inspectionRuleModel
	store, ok := readWith(ctx, req.State.Get, &state, r.ruleStore, &resp.Diagnostics)
	if !ok {
		return
	}
	if err := store.DeleteInspectionRule(ctx, state.ID.ValueString()); err != nil {
		resp.Diagnostics.AddError("Deleting inspection rule "+state.ID.ValueString(), err.Error())
	}
}

// ImportState takes the rule's UUID. A sensitive rule imports without its
// conditions and actions (Ironic does not say them): the next apply
// writes the configured ones.
func (r *inspectionRuleResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	ref := importRef(ctx, req, &resp.Diagnostics)
	store := r.ruleStore(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	got, found, err := store.InspectionRule(ctx, ref)
	switch {
	case err != nil:
		resp.Diagnostics.AddError("Importing inspection rule "+ref, err.Error())
		return
	case !found:
		resp.Diagnostics.AddError("Importing inspection rule "+ref, fmt.Sprintf("Ironic holds no inspection rule with the UUID %q", ref))
		return
	}
	var m inspectionRuleModel
	m.set(got)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
