package resources

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmcaddr"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// hostModel is baremetal_host's state.
type hostModel struct {
	ID                    types.String    `tfsdk:"id"`
	Name                  types.String    `tfsdk:"name"`
	BMC                   *bmcModel       `tfsdk:"bmc"`
	Driver                types.String    `tfsdk:"driver"`
	DriverInfo            types.Map       `tfsdk:"driver_info"`
	DriverSecrets         types.Map       `tfsdk:"driver_secrets"`
	DriverSecretsWO       types.Map       `tfsdk:"driver_secrets_wo"`
	DriverSecretsWOVer    types.String    `tfsdk:"driver_secrets_wo_version"`
	Interfaces            types.Map       `tfsdk:"interfaces"`
	BootMACAddress        types.String    `tfsdk:"boot_mac_address"`
	BootMode              types.String    `tfsdk:"boot_mode"`
	RootDeviceHints       *rootHintsModel `tfsdk:"root_device_hints"`
	RAID                  *raidModel      `tfsdk:"raid"`
	Online                types.Bool      `tfsdk:"online"`
	DisablePowerOff       types.Bool      `tfsdk:"disable_power_off"`
	AutomatedCleaningMode types.String    `tfsdk:"automated_cleaning_mode"`
	Inspection            types.String    `tfsdk:"inspection"`
	ExternallyProvisioned types.Bool      `tfsdk:"externally_provisioned"`
	Labels                types.Map       `tfsdk:"labels"`
	ResourceClass         types.String    `tfsdk:"resource_class"`
	DesiredState          types.String    `tfsdk:"desired_state"`
	Traits                types.Set       `tfsdk:"traits"`
	ConductorGroup        types.String    `tfsdk:"conductor_group"`
	Shard                 types.String    `tfsdk:"shard"`
	Timeouts              timeouts.Value  `tfsdk:"timeouts"`
	hostBootModel

	ProvisioningState types.String `tfsdk:"provisioning_state"`
	IronicState       types.String `tfsdk:"ironic_state"`
	OperationalStatus types.String `tfsdk:"operational_status"`
	ErrorType         types.String `tfsdk:"error_type"`
	ErrorMessage      types.String `tfsdk:"error_message"`
	ErrorCount        types.Int64  `tfsdk:"error_count"`
	PoweredOn         types.Bool   `tfsdk:"powered_on"`
	LastUpdated       types.String `tfsdk:"last_updated"`
	CurrentStep       types.String `tfsdk:"current_step"`
	LastTransition    types.String `tfsdk:"last_transition"`
	Health            types.String `tfsdk:"health"`
	RAIDConfig        types.String `tfsdk:"raid_config"`

	hostDay2Model
}

// bmcModel is the host's bmc block.
type bmcModel struct {
	Address                        types.String `tfsdk:"address"`
	Username                       types.String `tfsdk:"username"`
	Password                       types.String `tfsdk:"password"`
	PasswordWO                     types.String `tfsdk:"password_wo"`
	PasswordWOVersion              types.String `tfsdk:"password_wo_version"`
	DisableCertificateVerification types.Bool   `tfsdk:"disable_certificate_verification"`
	CheckCredentials               types.Bool   `tfsdk:"check_credentials"`
}

// rootHintsModel is BMO's root device hints.
type rootHintsModel struct {
	DeviceName         types.String `tfsdk:"device_name"`
	HCTL               types.String `tfsdk:"hctl"`
	Model              types.String `tfsdk:"model"`
	Vendor             types.String `tfsdk:"vendor"`
	SerialNumber       types.String `tfsdk:"serial_number"`
	MinSizeGigabytes   types.Int64  `tfsdk:"min_size_gigabytes"`
	WWN                types.String `tfsdk:"wwn"`
	WWNWithExtension   types.String `tfsdk:"wwn_with_extension"`
	WWNVendorExtension types.String `tfsdk:"wwn_vendor_extension"`
	Rotational         types.Bool   `tfsdk:"rotational"`
}

func (r *rootHintsModel) hints() *lifecycle.RootDeviceHints {
	if r == nil {
		return nil
	}
	h := &lifecycle.RootDeviceHints{
		DeviceName: r.DeviceName.ValueString(), HCTL: r.HCTL.ValueString(), Model: r.Model.ValueString(),
		Vendor: r.Vendor.ValueString(), SerialNumber: r.SerialNumber.ValueString(),
		MinSizeGigabytes: int(r.MinSizeGigabytes.ValueInt64()), WWN: r.WWN.ValueString(),
		WWNWithExtension: r.WWNWithExtension.ValueString(), WWNVendorExtension: r.WWNVendorExtension.ValueString(),
	}
	if !r.Rotational.IsNull() && !r.Rotational.IsUnknown() {
		b := r.Rotational.ValueBool()
		h.Rotational = &b
	}
	if h.IsZero() {
		return nil
	}
	return h
}

// hostSecrets are a host's write-only arguments, which only the
// configuration carries (null in plan and state): bmc.password_wo and
// driver_secrets_wo.
type hostSecrets struct {
	PasswordWO      types.String
	DriverSecretsWO types.Map
}

// noSecrets is what there is outside Create and Update.
func noSecrets() hostSecrets {
	return hostSecrets{PasswordWO: types.StringNull(), DriverSecretsWO: types.MapNull(types.StringType)}
}

// configSecrets reads the write-only arguments from the configuration.
func configSecrets(ctx context.Context, cfg tfsdk.Config) (hostSecrets, diag.Diagnostics) {
	s := noSecrets()
	var diags diag.Diagnostics
	var b types.Object
	diags.Append(cfg.GetAttribute(ctx, path.Root("bmc"), &b)...)
	if !b.IsNull() && !b.IsUnknown() {
		diags.Append(cfg.GetAttribute(ctx, path.Root("bmc").AtName("password_wo"), &s.PasswordWO)...)
	}
	diags.Append(cfg.GetAttribute(ctx, path.Root("driver_secrets_wo"), &s.DriverSecretsWO)...)
	return s, diags
}

// password returns the BMC password: the write-only one from configuration
// when given, else the stored one.
func (b *bmcModel) password(configPasswordWO types.String) string {
	if !configPasswordWO.IsNull() && !configPasswordWO.IsUnknown() {
		return configPasswordWO.ValueString()
	}
	return b.Password.ValueString()
}

// access builds the BMC access: from the bmc block's address when set,
// refined or replaced by driver, driver_info, driver_secrets and
// interfaces. passwordWO is the write-only password from configuration
// (null outside Create and Update), as are driver_secrets_wo.
// CredentialsVersion never depends on write-only values themselves, only on
// their _version arguments, so that a state read back without them compares
// equal.
func (m *hostModel) access(ctx context.Context, wo hostSecrets) (lifecycle.BMCAccess, diag.Diagnostics) {
	passwordWO := wo.PasswordWO
	var diags diag.Diagnostics
	var a lifecycle.BMCAccess
	version := struct {
		BMC, Driver string
		Info        map[string]any
		SecretsWO   string `json:",omitempty"`
	}{}
	if b := m.BMC; b != nil {
		d, err := bmcaddr.Parse(b.Address.ValueString())
		if err != nil {
			diags.AddAttributeError(path.Root("bmc").AtName("address"), "Invalid bmc.address", err.Error())
			return a, diags
		}
		a = d.Access(b.Username.ValueString(), b.password(passwordWO), b.DisableCertificateVerification.ValueBool())
		secret := b.Password.ValueString()
		if !b.PasswordWOVersion.IsNull() {
			secret = "write-only version " + b.PasswordWOVersion.ValueString()
		}
		version.BMC = bmcaddr.CredentialsVersion(b.Address.ValueString(), b.Username.ValueString(), secret,
			b.DisableCertificateVerification.ValueBool())
	}
	if !m.Driver.IsNull() {
		a.Driver = m.Driver.ValueString()
		version.Driver = a.Driver
		if a.Address == "" {
			a.Address = a.Driver
		}
	}
	if a.DriverInfo == nil {
		a.DriverInfo = map[string]any{}
	}
	version.Info = map[string]any{}
	for i, src := range []types.Map{m.DriverInfo, m.DriverSecrets, wo.DriverSecretsWO} {
		var kv map[string]string
		tfglue.ElementsAs(ctx, src, &kv, &diags)
		for k, v := range kv {
			a.DriverInfo[k] = v
			if i < 2 { // not the write-only secrets
				version.Info[k] = v
			}
		}
	}
	if !m.DriverSecretsWOVer.IsNull() {
		version.SecretsWO = "write-only version " + m.DriverSecretsWOVer.ValueString()
	}
	var ifaces map[string]string
	diags.Append(m.Interfaces.ElementsAs(ctx, &ifaces, false)...)
	if len(ifaces) > 0 && a.Interfaces == nil {
		a.Interfaces = map[string]string{}
	}
	for k, v := range ifaces {
		a.Interfaces[k+"_interface"] = v
	}
	raw, _ := json.Marshal(version)
	sum := sha256.Sum256(raw)
	a.CredentialsVersion = hex.EncodeToString(sum[:])
	return a, diags
}

// spec builds the host spec from the model.
func (m *hostModel) spec(ctx context.Context, wo hostSecrets) (lifecycle.HostSpec, diag.Diagnostics) {
	access, diags := m.access(ctx, wo)
	s := lifecycle.HostSpec{
		Name:                  m.Name.ValueString(),
		BMC:                   access,
		BootMACAddress:        m.BootMACAddress.ValueString(),
		BootMode:              lifecycle.BootMode(m.BootMode.ValueString()),
		RootDeviceHints:       m.RootDeviceHints.hints(),
		RAID:                  m.RAID.config(ctx),
		Online:                m.Online.ValueBool(),
		DisablePowerOff:       m.DisablePowerOff.ValueBool(),
		ExternallyProvisioned: m.ExternallyProvisioned.ValueBool(),
		InspectionDisabled:    m.Inspection.ValueString() == "disabled",
		Inspection:            lifecycle.InspectionMode(m.Inspection.ValueString()),
		AutomatedCleaningMode: m.AutomatedCleaningMode.ValueString(),
		ResourceClass:         m.ResourceClass.ValueString(),
		ConductorGroup:        m.ConductorGroup.ValueString(),
		Shard:                 m.Shard.ValueString(),
		Desired:               lifecycle.DesiredState(m.DesiredState.ValueString()),
	}
	s.Boot = m.bootSpec()
	tfglue.ElementsAs(ctx, m.Labels, &s.Labels, &diags)
	tfglue.ElementsAs(ctx, m.Traits, &s.Traits, &diags)
	sort.Strings(s.Traits)
	s.KeepTraits = m.Traits.IsNull()
	return s, diags
}

// setStatus copies the lifecycle status and the observation into the
// computed attributes.
func (m *hostModel) setStatus(h *lifecycle.Host, obs *lifecycle.Observation) {
	if h.Status.ID != "" {
		m.ID = types.StringValue(h.Status.ID)
	}
	m.ProvisioningState = types.StringValue(string(h.Status.State))
	m.OperationalStatus = types.StringValue(string(h.Status.OperationalStatus))
	m.ErrorType = types.StringValue(string(h.Status.ErrorType))
	m.ErrorMessage = types.StringValue(h.Status.ErrorMessage)
	m.ErrorCount = types.Int64Value(int64(h.Status.ErrorCount))
	m.PoweredOn = types.BoolValue(h.Status.PoweredOn)
	m.LastUpdated = types.StringValue(timeString(h.Status.LastUpdated))
	m.IronicState = types.StringValue("")
	m.CurrentStep = types.StringValue("")
	m.Health = types.StringNull()
	m.LastTransition = types.StringValue(timeString(lastTransition(h.Status.OperationHistory, nil)))
	if m.RAIDConfig.IsUnknown() {
		m.RAIDConfig = types.StringValue("")
	}
	if obs != nil && obs.Exists {
		m.IronicState = types.StringValue(obs.ProvisionState)
		m.CurrentStep = types.StringValue(obs.CurrentStep)
		m.Health = tfglue.NullableString(obs.Health)
		m.LastTransition = types.StringValue(timeString(lastTransition(h.Status.OperationHistory, obs)))
		m.RAIDConfig = types.StringValue(obs.RAIDConfig)
		if obs.PoweredOn != nil {
			m.PoweredOn = types.BoolValue(*obs.PoweredOn)
		}
		if m.LastUpdated.ValueString() == "" {
			m.LastUpdated = types.StringValue(timeString(obs.UpdatedAt))
		}
	}
}

// lastTransition is Ironic's provision_updated_at when obs has it, else
// the last state change the state machine recorded (zero: none).
func lastTransition(history map[lifecycle.State]time.Time, obs *lifecycle.Observation) time.Time {
	if obs != nil && !obs.ProvisionUpdatedAt.IsZero() {
		return obs.ProvisionUpdatedAt
	}
	var last time.Time
	for _, t := range history {
		if t.After(last) {
			last = t
		}
	}
	return last
}

// status rebuilds the lifecycle status that the state holds.
func (m *hostModel) status() lifecycle.HostStatus {
	st := lifecycle.HostStatus{
		ID:                      m.ID.ValueString(),
		State:                   lifecycle.State(m.ProvisioningState.ValueString()),
		OperationalStatus:       lifecycle.OperationalStatus(m.OperationalStatus.ValueString()),
		ErrorType:               lifecycle.ErrorType(m.ErrorType.ValueString()),
		ErrorMessage:            m.ErrorMessage.ValueString(),
		ErrorCount:              int(m.ErrorCount.ValueInt64()),
		PoweredOn:               m.PoweredOn.ValueBool(),
		PreparedRootDeviceHints: m.RootDeviceHints.hints(),
		PreparedRAID:            m.RAID.config(context.Background()),
	}
	// Kept from the state, so a pass that changes nothing (a refresh) keeps
	// it: left zero, setStatus took Ironic's updated_at instead, a second or
	// two before the last pass's stamp, and every refresh after an apply
	// reported each host's last_updated "changed outside of Terraform".
	if t, err := time.Parse(time.RFC3339, m.LastUpdated.ValueString()); err == nil {
		st.LastUpdated = t
	}
	return st
}

// readObserved copies what Ironic says about fields the user may change
// behind Terraform's back (labels, resource class, traits, boot mode,
// automated cleaning, disable_power_off), so a plan shows the drift. Fields the user left unset stay unset.
//
// Traits left unset are the node's to keep (inspection rules may set them):
// a refresh leaves them unset, an import reads them.
func (m *hostModel) readObserved(obs lifecycle.Observation, importing bool) {
	m.Name = types.StringValue(obs.Name)
	if !m.Labels.IsNull() || len(obs.Labels) > 0 {
		m.Labels = tfglue.StringMap(obs.Labels)
	}
	if !m.ResourceClass.IsNull() || obs.ResourceClass != "" {
		m.ResourceClass = types.StringValue(obs.ResourceClass)
	}
	if !m.Traits.IsNull() || (importing && len(obs.Traits) > 0) {
		m.Traits = tfglue.StringSet(obs.Traits)
	}
	if !m.DisablePowerOff.IsNull() || obs.DisablePowerOff {
		m.DisablePowerOff = types.BoolValue(obs.DisablePowerOff)
	}
	m.readPlacement(obs)
	m.readBoot(obs.Boot, m.BMC == nil && m.Driver.IsNull()) // (no bmc nor driver: an import)
	if obs.BootMode != "" {
		m.BootMode = types.StringValue(string(obs.BootMode))
	}
	if obs.AutomatedCleaning != nil {
		mode := lifecycle.CleaningMetadata
		if !*obs.AutomatedCleaning {
			mode = lifecycle.CleaningDisabled
		} else if cur := m.AutomatedCleaningMode.ValueString(); cur == lifecycle.CleaningExpress || cur == lifecycle.CleaningFull {
			mode = cur // erasure on top of automated cleaning
		}
		m.AutomatedCleaningMode = types.StringValue(mode)
	}
}
