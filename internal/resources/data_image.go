package resources

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// dataImageResource is BMO's DataImage: a non-bootable ISO attached to a
// host's virtual media (lifecycle's AttachDataImage and DetachDataImage).
type dataImageResource struct{ base }

type dataImageModel struct {
	ID     types.String `tfsdk:"id"`
	HostID types.String `tfsdk:"host_id"`
	URL    types.String `tfsdk:"url"`
	BMC    types.Object `tfsdk:"bmc"` // tfglue.BMCModel
	Device types.String `tfsdk:"device"`
}

// dataImagePrivate is the private state key of the URL this resource
// inserted: the one a destroy ejects (never an image someone else put in).
const dataImagePrivate = "inserted_url"

// dataImageTimeout bounds one create, update or destroy.
const dataImageTimeout = 10 * time.Minute

func (r *dataImageResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	bmcAttr := redfishBMCAttribute("The host's BMC, for an Ironic without the virtual media API (before API 1.89, such as "+
		"21.4): the image then goes in through its Redfish VirtualMedia (Ironic masks the BMC password, so it is needed again "+
		"here); leaving it out on such an Ironic is refused at plan, naming the microversion needed and the server's. "+
		"Not needed from 1.89 (Ironic 24.0; 2024.1 and later), where Ironic attaches the image with the credentials it keeps; "+
		"given there, it only reads the device back on Ironic 1.89 to 1.92, whose API cannot (reading is 1.93, 2024.2).",
		"BMC address as in `baremetal_host.bmc.address`, of a Redfish-family scheme (`ipmi://` and `libvirt://` are refused "+
			"at validate).")
	resp.Schema = schema.Schema{
		Description: "An ISO image (Ignition or cloud-init configuration, day-2 data) attached to a host's virtual media, as " +
			"Metal3's DataImage. On an Ironic with the virtual media API (1.89 and later) Ironic attaches and detaches it " +
			"(`POST`/`DELETE /v1/nodes/{id}/vmedia`, `device_type = cdrom`, the BMC fetching the URL) and, from 1.93, reads " +
			"it back (`GET`), with no BMC credentials needed here, for hosts of the hardware types Ironic publishes virtual " +
			"media for (`redfish`, `idrac`, `ilo`, `ilo5`; others need `bmc`). Ironic 2025.1 (29.0.5) serves the image from " +
			"its own HTTP server whatever is asked, so its `[deploy] http_url` must reach the BMC. On an older Ironic (21.4 is " +
			"1.82) the image is inserted " +
			"through the BMC's Redfish `VirtualMedia.InsertMedia` in its CD/DVD device, with the Ironic node in " +
			"maintenance for the duration so that Ironic does not act on the node meanwhile; only the maintenance it set is " +
			"ended; `bmc` is then required. A host whose BMC has no CD/DVD virtual media is refused at plan when the host " +
			"exists and `bmc` is given (through the BMC), and so is a host that boots from virtual media (boot interface " +
			"`redfish-virtual-media`, `idrac-redfish-virtual-media`, `ilo-virtual-media` or `irmc-virtual-media`: Ironic puts " +
			"its boot ISO in that CD), at plan when the host exists, else at apply before anything is written. Destroying the " +
			"resource ejects the image (only the one it inserted). A refresh reads the device: an image ejected, or replaced, " +
			"out of band shows as `url` changed, and the next apply inserts it again. A detached host (`baremetal_host." +
			"detached`) is refused on create and forgotten on destroy.",
		Attributes: map[string]schema.Attribute{
			"id":      keptString("The Ironic node UUID."),
			"host_id": replacingString("The host: Ironic node UUID or name. Changing it replaces the resource."),
			"url": schema.StringAttribute{
				Required: true,
				Description: "The ISO's URL, http or https (the BMC fetches it itself). After a refresh, what the device holds " +
					"(empty when ejected). Changing it inserts the new image in place of the old one.",
				Validators: checkString("an http or https URL", validateImageURL),
			},
			"bmc": bmcAttr,
			"device": keptString("The virtual media device that holds the image: its Redfish Id (`Cd`, `CD1`, ...) when read " +
				"through the BMC, `cdrom` (Ironic's device type) through Ironic's virtual media API."),
		},
	}
}

func validateImageURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http or https URL with a host", s)
	}
	return nil
}

// access is the model's BMC access; nil (with an error reported) when it
// cannot be built, or when it is not known yet.
func (m *dataImageModel) access(ctx context.Context, diags *diag.Diagnostics) *lifecycle.BMCAccess {
	return tfglue.BMCFromObject(ctx, m.BMC, diags).Access(diags)
}

// ModifyPlan refuses a data image without bmc on an Ironic without the
// virtual media API and, when the host exists, a detached host, one that
// boots from virtual media, or a BMC without virtual media.
func (r *dataImageResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	var plan dataImageModel
	resp.Diagnostics.Append(tfglue.GetKnown(ctx, req.Plan, &plan)...)
	if resp.Diagnostics.HasError() || !tfglue.Known(plan.HostID) || !tfglue.Known(plan.URL) {
		return
	}
	if !req.State.Raw.IsNull() {
		var state dataImageModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if state.URL.Equal(plan.URL) {
			return // nothing to insert
		}
	}
	if plan.BMC.IsNull() {
		if f := r.clients.DataImageNeedsBMC(); f != nil {
			resp.Diagnostics.AddAttributeError(path.Root(f.Attribute), f.Summary, f.Detail)
			return
		}
	}
	var diags diag.Diagnostics
	access := plan.access(ctx, &diags) // unknown or bad credentials: the apply says
	for _, f := range r.clients.CheckDataImage(ctx, plan.HostID.ValueString(), plan.URL.ValueString(), access) {
		resp.Diagnostics.AddAttributeError(path.Root(f.Attribute), f.Summary, f.Detail)
	}
}

func (r *dataImageResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan dataImageModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.insert(ctx, &plan, resp.Private, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// privateSetter is the part of a response's Private the resource uses.
type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// insert puts plan's URL in the host's virtual media and records it.
func (r *dataImageResource) insert(ctx context.Context, plan *dataImageModel, private privateSetter, diags *diag.Diagnostics) {
	if r.clients == nil {
		diags.AddError("Provider not configured", "the provider has no Ironic client configured")
		return
	}
	access := plan.access(ctx, diags)
	if diags.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, dataImageTimeout)
	defer cancel()
	ref := plan.HostID.ValueString()
	ctx = tflog.SetField(ctx, "host", ref)
	obs, ms, refusals, err := r.clients.AttachDataImage(ctx, lifecycle.DataImageRequest{
		Ref: ref, URL: plan.URL.ValueString(), Access: access, Log: TFLog{}})
	for _, f := range refusals {
		diags.AddAttributeError(path.Root(f.Attribute), f.Summary, f.Detail)
	}
	if diags.HasError() {
		return
	}
	if err != nil {
		hostErrorDiag(diags, "Attaching the data image to host "+ref, err)
		return
	}
	plan.ID = types.StringValue(obs.ID)
	plan.Device = types.StringValue(ms.Device)
	b, _ := json.Marshal(plan.URL.ValueString()) //nolint:errchkjson // a string always marshals
	diags.Append(private.SetKey(ctx, dataImagePrivate, b)...)
}

// Read shows what the device holds: an image ejected (or replaced) out of
// band is drift on url; a host that is gone takes the resource with it.
func (r *dataImageResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer identityAfterRead(ctx, req, resp)
	var m dataImageModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || r.clients == nil {
		return
	}
	access := m.access(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	obs, ms, err := r.clients.ReadDataImage(ctx, m.ID.ValueString(), access)
	switch {
	case err != nil:
		resp.Diagnostics.AddError("Reading the virtual media of host "+m.ID.ValueString(), err.Error())
		return
	case !obs.Exists:
		tflog.Info(ctx, "host is gone: removing its data image from state", map[string]any{"host": m.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	if !ms.Unread && !ms.Holds(m.URL.ValueString()) {
		tflog.Warn(ctx, "the host's virtual media no longer holds the data image", map[string]any{
			"host": obs.ID, "want": m.URL.ValueString(), "device_holds": ms.Image})
		m.URL = types.StringValue(ms.Image)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Update inserts a new URL (or the same one again after an eject out of
// band), or only records new bmc credentials.
func (r *dataImageResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan, state dataImageModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !plan.URL.Equal(state.URL) {
		r.insert(ctx, &plan, resp.Private, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete ejects the image this resource inserted; a detached host is
// forgotten.
func (r *dataImageResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m dataImageModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || r.clients == nil {
		return
	}
	raw, d := req.Private.GetKey(ctx, dataImagePrivate)
	resp.Diagnostics.Append(d...)
	inserted := m.URL.ValueString()
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &inserted); err != nil {
			inserted = m.URL.ValueString()
		}
	}
	access := m.access(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, dataImageTimeout)
	defer cancel()
	err := r.clients.DetachDataImage(ctx, lifecycle.DataImageRequest{Ref: m.ID.ValueString(), URL: inserted, Access: access, Log: TFLog{}})
	if detachedDiag(ctx, &resp.Diagnostics, err) {
		return
	}
	if err != nil {
		hostErrorDiag(&resp.Diagnostics, "Ejecting the data image from host "+m.ID.ValueString(), err)
	}
}
