package lifecycle

import (
	"context"
	"errors"
)

// This file is what the baremetal_host resource reads of its node outside
// Converge: a refresh, the status a change starts from, and an import.

// ObserveHost reads h's node for a refresh (Terraform Read) and moves h's
// id and state to what Ironic shows. exists is false when the node is gone.
func (m *Machine) ObserveHost(ctx context.Context, h *Host) (obs Observation, exists bool, err error) {
	obs, err = m.Prov.Observe(ctx, h)
	if err != nil || !obs.Exists {
		return obs, false, err
	}
	h.Status.ID = obs.ID
	if obs.State != "" {
		h.Status.State = obs.State
	}
	return obs, true, nil
}

// Sync refreshes h's status from Ironic before a change (update or
// delete) and keeps what a deployment owns: a deployed (or deploying) host
// keeps its image and stays powered on. A node that is gone gives a
// *HostError wrapping ErrNotRegistered.
func (m *Machine) Sync(ctx context.Context, h *Host) error {
	obs, err := m.Prov.Observe(ctx, h)
	if err != nil {
		return err
	}
	if !obs.Exists {
		return &HostError{Host: h.Spec.Name, ID: h.Status.ID, State: h.Status.State, Err: ErrNotRegistered}
	}
	h.Status.ID = obs.ID
	if obs.State != "" {
		h.Status.State = obs.State
	}
	if obs.PoweredOn != nil {
		h.Status.PoweredOn = *obs.PoweredOn
	}
	// Only a deployed (or deploying) host keeps its image: a failed deploy
	// can leave image fields in instance_info of an available node.
	if Deployed(obs.State) {
		h.Status.DeployedImage = obs.DeployedImage
		h.Spec.Image = obs.DeployedImage
		h.Spec.Online = true
	}
	return nil
}

// ImportHost reads the node ref names (UUID or name) for terraform import.
func (m *Machine) ImportHost(ctx context.Context, ref string) (Observation, error) {
	obs, err := m.Observe(ctx, HostRef{ID: ref, Name: ref})
	if err == nil && !obs.Exists {
		err = errors.New("no Ironic node has this name or UUID")
	}
	return obs, err
}
