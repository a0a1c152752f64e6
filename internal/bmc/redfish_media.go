package bmc

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/stmcginnis/gofish/schemas"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// ErrNoVirtualMedia says that the system's BMC has no virtual media device
// that takes a CD or DVD image (lifecycle's, for errors.Is across layers).
var ErrNoVirtualMedia = lifecycle.ErrNoVirtualMedia

// MediaDevice is one virtual media device of a system's manager.
type MediaDevice struct {
	// ID is the device's Redfish Id ("Cd", "CD1", "2", ...).
	ID string
	// Image is the URL of the image inserted; "" when none is.
	Image    string
	Inserted bool
}

// cdMedia is the first virtual media device of the system's managers that
// takes CD or DVD images: the one a data image ISO goes in (Ironic's
// redfish-virtualmedia picks it the same way).
func (c *RedfishClient) cdMedia(systemID string) (*schemas.VirtualMedia, error) {
	sys, err := c.system(systemID)
	if err != nil {
		return nil, err
	}
	managers, err := sys.ManagedBy()
	if err != nil {
		return nil, c.wrap("read the managers of system "+sys.ID, err)
	}
	for _, m := range managers {
		devs, err := m.VirtualMedia()
		if isStatus(err, http.StatusNotFound) {
			continue // linked but not there (unlicensed, or absent)
		}
		if err != nil {
			return nil, c.wrap("read the virtual media of manager "+m.ID, err)
		}
		for _, d := range devs {
			for _, t := range d.MediaTypes {
				if t == schemas.CDVirtualMediaType || t == schemas.DVDVirtualMediaType {
					return d, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("BMC %s: system %s: %w (none of its managers lists a VirtualMedia device of media type CD or DVD)",
		c.endpoint, sys.ID, ErrNoVirtualMedia)
}

// CDMedia reads the system's CD/DVD virtual media device; an error that
// wraps ErrNoVirtualMedia when the BMC has none.
func (c *RedfishClient) CDMedia(systemID string) (MediaDevice, error) {
	d, err := c.cdMedia(systemID)
	if err != nil {
		return MediaDevice{}, err
	}
	return mediaDevice(d), nil
}

func mediaDevice(d *schemas.VirtualMedia) MediaDevice {
	md := MediaDevice{ID: d.ID, Image: d.Image}
	if d.Inserted != nil {
		md.Inserted = *d.Inserted
	} else {
		md.Inserted = d.Image != ""
	}
	if !md.Inserted {
		md.Image = ""
	}
	return md
}

// InsertCDMedia inserts image (a URL) in the system's CD/DVD virtual media
// device (VirtualMedia.InsertMedia, read-only, inserted), ejecting whatever
// another image was in it first. It returns the device as read back.
func (c *RedfishClient) InsertCDMedia(systemID, image string) (MediaDevice, error) {
	d, err := c.cdMedia(systemID)
	if err != nil {
		return MediaDevice{}, err
	}
	cur := mediaDevice(d)
	if cur.Inserted && cur.Image == image {
		return cur, nil
	}
	if cur.Inserted {
		if _, err := d.EjectMedia(); err != nil {
			return MediaDevice{}, c.wrap(fmt.Sprintf("eject %s from virtual media %s", c.redact(cur.Image), d.ID), err)
		}
	}
	yes := true
	if _, err := d.InsertMedia(&schemas.VirtualMediaInsertMediaParameters{Image: image, Inserted: &yes, WriteProtected: &yes}); err != nil {
		return MediaDevice{}, c.wrap(fmt.Sprintf("insert %s in virtual media %s", c.redact(image), d.ID), err)
	}
	return c.CDMedia(systemID)
}

// EjectCDMedia ejects the image in the system's CD/DVD virtual media
// device when it is image ("" ejects whatever is in it); an image other
// than that one is left alone. A BMC without virtual media has nothing to
// eject.
func (c *RedfishClient) EjectCDMedia(systemID, image string) error {
	d, err := c.cdMedia(systemID)
	if errors.Is(err, ErrNoVirtualMedia) {
		return nil
	}
	if err != nil {
		return err
	}
	cur := mediaDevice(d)
	if !cur.Inserted || (image != "" && cur.Image != image) {
		return nil
	}
	if _, err := d.EjectMedia(); err != nil {
		return c.wrap(fmt.Sprintf("eject %s from virtual media %s", c.redact(cur.Image), d.ID), err)
	}
	return nil
}
