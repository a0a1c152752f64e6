package ironic

import (
	"context"
	"fmt"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// This file is lifecycle.VirtualMediaBMC: a data image through the node's
// BMC (Redfish VirtualMedia), since Ironic 21.4 (API <= 1.82) has no
// virtual media attach API (1.89+).

// mediaClient connects to the node's BMC over Redfish.
func (c *Catalog) mediaClient(ctx context.Context, id string, access lifecycle.BMCAccess) (*bmc.RedfishClient, string, error) {
	n, err := c.node(ctx, id)
	if err != nil {
		return nil, "", err
	}
	rc, systemID, err := nodeRedfish(ctx, &access, n, "reaching the BMC's virtual media")
	if err != nil {
		return nil, "", err
	}
	if rc == nil {
		return nil, "", fmt.Errorf("node %s: %w: the BMC address %q is not a Redfish one (a data image goes in through "+
			"the BMC's Redfish VirtualMedia)", n.UUID, lifecycle.ErrNoVirtualMedia, access.Address)
	}
	return rc, systemID, nil
}

// CDMedia reads the node's CD/DVD virtual media device through its BMC.
func (c *Catalog) CDMedia(ctx context.Context, id string, access lifecycle.BMCAccess) (lifecycle.MediaState, error) {
	rc, systemID, err := c.mediaClient(ctx, id, access)
	if err != nil {
		return lifecycle.MediaState{}, err
	}
	defer rc.Close()
	d, err := rc.CDMedia(systemID)
	return mediaState(d), err
}

// InsertCDMedia inserts url in the node's CD/DVD virtual media device.
func (c *Catalog) InsertCDMedia(ctx context.Context, id string, access lifecycle.BMCAccess, url string) (lifecycle.MediaState, error) {
	rc, systemID, err := c.mediaClient(ctx, id, access)
	if err != nil {
		return lifecycle.MediaState{}, err
	}
	defer rc.Close()
	d, err := rc.InsertCDMedia(systemID, url)
	return mediaState(d), err
}

// EjectCDMedia ejects url from the node's CD/DVD virtual media device.
func (c *Catalog) EjectCDMedia(ctx context.Context, id string, access lifecycle.BMCAccess, url string) error {
	rc, systemID, err := c.mediaClient(ctx, id, access)
	if err != nil {
		return err
	}
	defer rc.Close()
	return rc.EjectCDMedia(systemID, url)
}

func mediaState(d bmc.MediaDevice) lifecycle.MediaState {
	return lifecycle.MediaState{Device: d.ID, Image: d.Image, Inserted: d.Inserted}
}

var _ lifecycle.VirtualMediaBMC = (*Catalog)(nil)
