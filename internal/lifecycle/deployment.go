package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// This file is the deployment half of the host (BMO's spec.image,
// customDeploy, userData, metaData and networkData on a host that another
// owner registered): which states count as deployed, when a deploy resumes
// one an interrupted apply left behind, the undeploy after a failed
// deploy, and what a refresh concludes. The baremetal_deployment resource
// only converts its model and calls these.

// HostRef names a host the caller tracks: its node id and name, and the
// state it last saw it in (which the provisioner's state mapping needs).
// Either ID or Name finds the node (ID first).
type HostRef struct {
	ID    string
	Name  string
	State State
}

func (r HostRef) host() *Host {
	return &Host{Spec: HostSpec{Name: r.Name}, Status: HostStatus{ID: r.ID, State: r.State}}
}

// Observe reads the node behind ref without changing anything. A node that
// does not exist gives Exists=false and no error.
func (m *Machine) Observe(ctx context.Context, ref HostRef) (Observation, error) {
	return m.Prov.Observe(ctx, ref.host())
}

// Snapshot reads h's node back for the caller to record. It returns nil
// (and logs why) when the read fails: the caller records what h says.
func (m *Machine) Snapshot(ctx context.Context, h *Host) *Observation {
	obs, err := m.Prov.Observe(ctx, h)
	if err != nil {
		m.log(ctx, "could not read the host back", map[string]any{"host": h.Spec.Name, "error": err.Error()})
		return nil
	}
	return &obs
}

// Deployed reports whether a deployment exists on a host in state s:
// deployed, or being deployed. Anywhere else it is gone.
func Deployed(s State) bool {
	return s == StateProvisioning || s == StateProvisioned
}

// DeployedImageURL is the URL of the image Ironic shows deployed on the
// observed node ("" when none, or when the node is not deployed).
func DeployedImageURL(obs *Observation) string {
	if obs == nil || !obs.Exists || obs.DeployedImage == nil || !Deployed(obs.State) {
		return ""
	}
	return obs.DeployedImage.URL
}

// DeploymentDrift reports why a deployment of wantURL ("" for a custom
// deploy without image, which cannot be recognised on the node) no longer
// exists on the observed host, or "".
func DeploymentDrift(obs Observation, wantURL string) string {
	if !Deployed(obs.State) {
		return fmt.Sprintf("the host is %q (Ironic %q), no longer provisioned", obs.State, obs.ProvisionState)
	}
	if have := imageURL(obs.DeployedImage); wantURL != "" && have != wantURL {
		return fmt.Sprintf("the host runs image %q, not %q", have, wantURL)
	}
	return ""
}

// Resumable reports whether the observed host is already deployed, or
// being deployed, with wantURL: what an apply interrupted before it saved
// the deployment leaves behind. A custom deploy without image ("") is
// never recognised.
func Resumable(obs Observation, wantURL string) bool {
	return Deployed(obs.State) && wantURL != "" && imageURL(obs.DeployedImage) == wantURL
}

// DeployPreconditionError says why a host cannot be deployed at all
// (nothing was changed): not found, not readable, or not available.
type DeployPreconditionError struct {
	Summary, Detail string
}

func (e *DeployPreconditionError) Error() string { return e.Summary + ": " + e.Detail }

// DeployFailure is a deploy that failed after it started. Err is the
// converge error (a *HostError, or the context's error when cut short);
// CleanupErr is set when the undeploy after the failure failed too.
type DeployFailure struct {
	Err        error
	CleanupErr error
}

func (e *DeployFailure) Error() string { return e.Err.Error() }
func (e *DeployFailure) Unwrap() error { return e.Err }

// DeployRequest asks Deploy to deploy Spec on the host Ref names (node
// UUID or name).
type DeployRequest struct {
	Ref string
	// Spec holds what the deployment asks: Image, CustomDeploy, UserData,
	// MetaData (over the defaults), NetworkData (none: the node's network_data,
	// the host's preprovisioning network data), RootDeviceHints and
	// MaxProvisioningRetries. Deploy fills in the rest from the node.
	Spec HostSpec
	// Retries is how many failed deploys Converge retries.
	Retries int
	// Save records the host (with what Ironic shows of it, nil when the
	// read failed). Deploy calls it as soon as the deploy ends, before any
	// clean-up, and again after the clean-up: a failed deployment is
	// tracked, never lost.
	Save func(h *Host, obs *Observation)
	// CleanupTimeout bounds the undeploy after a failed deploy (it runs
	// even when ctx was the one that ran out).
	CleanupTimeout time.Duration
	// CleanupRetries is how many failures that undeploy retries; the
	// baremetal_deployment resource leaves it at 0 (a tainted deployment's
	// destroy retries it).
	CleanupRetries int
}

// Deploy provisions the host req.Ref names with req.Spec, as BMO's
// provisioning does: the host must be available, unless it is already
// deployed (or being deployed) with the same image, which resumes the
// deploy an interrupted apply left. A deploy that fails after provisioning
// started is undone (BMO: provisioning -> deprovisioning -> available on a
// failure), unless it was cut short (timeout or interrupt: the host is left
// as it is, for the next apply's destroy). A detached host is refused with
// a *DetachedError. The host is nil only with a *DeployPreconditionError
// or a *DetachedError.
func (m *Machine) Deploy(ctx context.Context, req DeployRequest) (*Host, error) {
	obs, err := m.Observe(ctx, HostRef{ID: req.Ref})
	if err != nil {
		return nil, &DeployPreconditionError{Summary: "Reading host " + req.Ref, Detail: err.Error()}
	}
	if !obs.Exists {
		return nil, &DeployPreconditionError{Summary: "Host not found",
			Detail: fmt.Sprintf("No Ironic node has the UUID or name %q: create it with baremetal_host first.", req.Ref)}
	}
	if err := CheckAttached(obs, "deploy on it"); err != nil {
		return nil, err
	}
	resuming := Resumable(obs, imageURL(req.Spec.Image))
	if obs.State != StateAvailable && !resuming {
		return nil, &DeployPreconditionError{Summary: "Host not available",
			Detail: fmt.Sprintf("Host %q (node %s) is %q (Ironic provision state %q): the Bare Metal Operator only provisions hosts that are available.",
				obs.Name, obs.ID, string(obs.State), obs.ProvisionState)}
	}
	h := deployHost(req.Spec, obs)
	if resuming {
		// An apply was interrupted before it could save the deployment:
		// carry on with it instead of failing on a busy host.
		m.log(ctx, "host is already being deployed with this image; resuming", map[string]any{
			"host": obs.Name, "state": string(obs.State), "provision_state": obs.ProvisionState,
		})
		if obs.State == StateProvisioned {
			h.Status.DeployedImage = h.Spec.Image
			h.Status.DeployedCustomDeploy = h.Spec.CustomDeploy
		}
	}
	customDeploy := h.Spec.CustomDeploy
	err = m.Converge(ctx, h, ConvergeOptions{Retries: req.Retries})
	save := func(ctx context.Context) {
		if req.Save != nil && h.Status.ID != "" {
			req.Save(h, m.Snapshot(ctx, h))
		}
	}
	save(ctx)
	if err == nil {
		return h, nil
	}
	fail := &DeployFailure{Err: err}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return h, fail // cut short: the tainted deployment is deprovisioned by the next apply
	}
	if !Deployed(h.Status.State) && h.Status.State != StateDeprovisioning {
		return h, fail // failed before provisioning started: nothing to undo
	}
	cleanCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), req.CleanupTimeout)
	defer cancel()
	fail.CleanupErr = m.undeploy(cleanCtx, h, customDeploy, req.CleanupRetries)
	save(cleanCtx)
	return h, fail
}

// deployHost is the host Deploy converges: found available, asked to
// deploy, with the node's network_data when the deployment gives none.
// The deployment knows no BMC credentials; with an empty BMCAccess and
// GoodCredentials equal to its (empty) CredentialsVersion, the state
// machine does not push driver_info again.
func deployHost(spec HostSpec, obs Observation) *Host {
	spec.Name = obs.Name
	spec.RegisteredElsewhere = true
	spec.Online = true
	// The host's boot mode decides instance_info's secure_boot capability.
	spec.BootMode = obs.BootMode
	// meta_data: BMO's "uuid" is the BMH UID; ours is the node UUID. The
	// deployment's own meta_data overrides it.
	md := map[string]any{}
	if obs.ID != "" {
		md["uuid"] = obs.ID
	}
	for k, v := range spec.MetaData {
		md[k] = v
	}
	spec.MetaData = md
	// BMO: without networkData, the host's preprovisioning network data
	// (the node's network_data) is its network data in the config drive.
	if len(spec.NetworkData) == 0 && len(obs.Boot.NetworkData) > 0 {
		spec.NetworkData = obs.Boot.NetworkData
	}
	h := &Host{
		Spec: spec,
		Status: HostStatus{
			ID:              obs.ID,
			State:           obs.State,
			GoodCredentials: spec.BMC.CredentialsVersion,
			// The root device hints override goes into instance_info at
			// deploy time; it must not send the host through preparing
			// (manual cleaning), which belongs to the host resource.
			PreparedRootDeviceHints: spec.RootDeviceHints,
		},
	}
	if obs.PoweredOn != nil {
		h.Status.PoweredOn = *obs.PoweredOn
	}
	return h
}

// Undeploy deprovisions the deployment on the host ref names (undeploy,
// then cleaning) back to available, powered off, retrying up to retries
// failures (BMO's delete rules retry 3). customDeploy is the deployment's
// custom deploy method, which Ironic does not show. found is false when
// the node no longer exists (nothing to do). On a detached host nothing is
// written: the error is a Forgotten *DetachedError, and h is nil.
func (m *Machine) Undeploy(ctx context.Context, ref HostRef, customDeploy string, retries int) (h *Host, found bool, err error) {
	if ref.State == "" {
		ref.State = StateProvisioned
	}
	obs, err := m.Observe(ctx, ref)
	if err != nil || !obs.Exists {
		return nil, false, err
	}
	if err := ForgetDetached(obs, "undeploy and clean it"); err != nil {
		return nil, true, err
	}
	h = &Host{
		Spec:   HostSpec{Name: obs.Name, Online: false, RegisteredElsewhere: true},
		Status: HostStatus{ID: obs.ID, State: obs.State, DeployedImage: obs.DeployedImage},
	}
	if obs.PoweredOn != nil {
		h.Status.PoweredOn = *obs.PoweredOn
	}
	return h, true, m.undeploy(ctx, h, customDeploy, retries)
}

// undeploy converges h (a host whose deploy failed, or that is deployed)
// to no image, powered off: provisioned sees the image removed ->
// deprovisioning (undeploy, cleaning) -> available. h is updated in place.
func (m *Machine) undeploy(ctx context.Context, h *Host, customDeploy string, retries int) error {
	h.Spec.Image = nil
	h.Spec.CustomDeploy = ""
	h.Spec.UserData, h.Spec.MetaData, h.Spec.NetworkData = "", nil, nil
	h.Spec.RootDeviceHints = nil
	h.Spec.Online = false
	if h.Status.State == StateProvisioned && h.Status.DeployedCustomDeploy == "" {
		h.Status.DeployedCustomDeploy = customDeploy
	}
	return m.Converge(ctx, h, ConvergeOptions{Retries: retries})
}

// RefreshDeployment reads the host a deployment of wantURL lives on (a
// Terraform Read). gone says why the deployment no longer exists ("" while
// it does): the node was deleted, left the deployed states, or runs
// another image. A gone deployment is planned again.
func (m *Machine) RefreshDeployment(ctx context.Context, ref HostRef, wantURL string) (obs Observation, gone string, err error) {
	obs, err = m.Observe(ctx, ref)
	switch {
	case err != nil:
		return obs, "", err
	case !obs.Exists:
		return obs, "the host no longer exists in Ironic", nil
	}
	return obs, DeploymentDrift(obs, wantURL), nil
}

// ImportDeployment reads the deployment on the host ref names (node UUID
// or name) for terraform import: the host must be provisioned with an
// image (Ironic does not show the config drive, nor a custom deploy).
func (m *Machine) ImportDeployment(ctx context.Context, ref string) (Observation, error) {
	obs, err := m.Observe(ctx, HostRef{ID: ref, Name: ref})
	switch {
	case err != nil:
		return obs, err
	case !obs.Exists:
		return obs, errors.New("no Ironic node has this name or UUID")
	case obs.State != StateProvisioned || obs.DeployedImage == nil:
		return obs, fmt.Errorf("host %q is %q (Ironic %q), not deployed with an image: nothing to import", obs.Name, obs.State, obs.ProvisionState)
	}
	return obs, nil
}
