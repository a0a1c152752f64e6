package ironic

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// This file is lifecycle.VirtualMediaAPI: a data image through Ironic's
// virtual media API (attach and detach 1.89, read 1.93). Ironic answers
// 204 and does the work in a conductor worker that holds the node's lock,
// writing last_error when it fails: each call waits for the lock to go.

var _ lifecycle.VirtualMediaAPI = (*Catalog)(nil)

// vmediaPoll is the pause between two reads of a node whose virtual media
// the conductor is changing.
const vmediaPoll = 500 * time.Millisecond

// AttachCDMedia attaches url as the node's CD, the BMC fetching it
// (image_download_source http), and waits for the conductor.
func (c *Catalog) AttachCDMedia(ctx context.Context, id, url string) error {
	err := nodes.AttachVirtualMedia(ctx, c.sc, id, nodes.AttachVirtualMediaOpts{
		DeviceType: nodes.VirtualMediaCD, ImageURL: url, ImageDownloadSource: nodes.ImageDownloadSourceHTTP,
	}).ExtractErr()
	if err != nil {
		return apiError("attach virtual media to node "+id, err)
	}
	return c.vmediaDone(ctx, id, "attaching")
}

// DetachCDMedia detaches the node's CD and waits for the conductor.
func (c *Catalog) DetachCDMedia(ctx context.Context, id string) error {
	err := nodes.DetachVirtualMedia(ctx, c.sc, id, nodes.DetachVirtualMediaOpts{
		DeviceTypes: []nodes.VirtualMediaDeviceType{nodes.VirtualMediaCD},
	}).ExtractErr()
	if err != nil {
		return apiError("detach virtual media from node "+id, err)
	}
	return c.vmediaDone(ctx, id, "detaching")
}

// vmediaDone waits until the node's lock is released and returns its
// last_error, if any, as the failure of what it was doing.
func (c *Catalog) vmediaDone(ctx context.Context, id, doing string) error {
	for {
		n, err := c.node(ctx, id)
		if err != nil {
			return err
		}
		if n.Reservation == "" {
			if n.LastError != "" {
				return fmt.Errorf("node %s: %s virtual media failed: %s", id, doing, n.LastError)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("node %s: waiting for Ironic to finish %s virtual media: %w", id, doing, ctx.Err())
		case <-time.After(vmediaPoll):
		}
	}
}

// CDMediaState reads the node's virtual media (GET, 1.93): the first
// device that takes a CD or DVD, inserted ones first.
func (c *Catalog) CDMediaState(ctx context.Context, id string) (lifecycle.MediaState, error) {
	var list []struct {
		Image      string   `json:"image"`
		Inserted   bool     `json:"inserted"`
		MediaTypes []string `json:"media_types"`
	}
	if err := nodes.GetVirtualMedia(ctx, c.sc, id).ExtractInto(&list); err != nil {
		return lifecycle.MediaState{}, apiError("get virtual media of node "+id, err)
	}
	found := false
	var ms lifecycle.MediaState
	for _, d := range list {
		if !slices.Contains(d.MediaTypes, "CD") && !slices.Contains(d.MediaTypes, "DVD") {
			continue
		}
		if !found || d.Inserted && !ms.Inserted {
			ms, found = lifecycle.MediaState{Device: lifecycle.MediaDeviceIronic, Image: d.Image, Inserted: d.Inserted}, true
		}
	}
	if !found {
		return ms, fmt.Errorf("node %s: %w", id, lifecycle.ErrNoVirtualMedia)
	}
	return ms, nil
}
