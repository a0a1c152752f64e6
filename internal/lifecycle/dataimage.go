package lifecycle

import (
	"context"
	"errors"
	"fmt"
)

// This file is the baremetal_data_image resource's side of BMO's
// DataImage: a non-bootable ISO attached to a host's virtual media. Ironic
// 21.4 (API <= 1.82) has no virtual media API (attach/detach is 1.89+), so
// the ISO goes in through the BMC's Redfish VirtualMedia.InsertMedia with
// the node in maintenance for the duration, the way a firmware update goes
// through the BMC (UpdateFirmwareThroughBMC): Ironic's power and boot
// handling must not act on the node while its BMC is driven behind its
// back. Only the maintenance this set is ended afterwards.

// ErrNoVirtualMedia says that a host's BMC has no virtual media device that
// takes a CD or DVD image.
var ErrNoVirtualMedia = errors.New("the BMC has no virtual media device for CD or DVD images")

// MediaState is the CD/DVD virtual media device of a host's BMC.
type MediaState struct {
	// Device is the device's Redfish Id.
	Device string
	// Image is the URL of the image inserted; "" when none is.
	Image    string
	Inserted bool
}

// VirtualMediaBMC drives a host's virtual media through its BMC, with the
// credentials the caller supplies (Ironic masks the stored password).
// internal/ironic implements it on the same type as FirmwareUpdater.
type VirtualMediaBMC interface {
	// CDMedia reads the node's CD/DVD virtual media device; an error
	// wrapping ErrNoVirtualMedia when the BMC has none.
	CDMedia(ctx context.Context, id string, access BMCAccess) (MediaState, error)
	// InsertCDMedia inserts url in it (ejecting another image first) and
	// reads it back.
	InsertCDMedia(ctx context.Context, id string, access BMCAccess, url string) (MediaState, error)
	// EjectCDMedia ejects url from it; another image, or none, is left as
	// it is, and a BMC without virtual media has nothing to eject.
	EjectCDMedia(ctx context.Context, id string, access BMCAccess, url string) error
}

// MaintenanceReasonDataImage starts the maintenance reason the data image
// sets while it drives the BMC.
const MaintenanceReasonDataImage = "terraform-provider-baremetal: data image"

// mediaBMC is the VirtualMediaBMC among the clients.
func (c *Clients) mediaBMC() (VirtualMediaBMC, Maintainer, error) {
	for _, x := range []any{c.Updater, c.Firmware} {
		if v, ok := x.(VirtualMediaBMC); ok {
			if m, ok := x.(Maintainer); ok {
				return v, m, nil
			}
		}
	}
	return nil, nil, errors.New("the provider has no BMC virtual media client configured")
}

// DataImageRefusal says why a data image cannot be attached (nothing was
// changed); Attribute is "host_id" or "bmc".
type DataImageRefusal = FirmwareRefusal

// noMediaRefusal is the refusal of a host whose BMC has no virtual media.
func noMediaRefusal(obs Observation, err error) DataImageRefusal {
	return DataImageRefusal{Attribute: "host_id", Summary: "Host has no virtual media",
		Detail: fmt.Sprintf("Host %q (node %s) cannot take a data image: %v. A data image needs a BMC with a CD or DVD "+
			"Redfish VirtualMedia device.", hostLabel(obs), obs.ID, err)}
}

// virtualMediaBoot are Ironic's boot interfaces that boot the host from an
// ISO in the BMC's virtual CD: the deploy ramdisk, and the instance when it
// is an ISO.
var virtualMediaBoot = map[string]bool{
	"redfish-virtual-media":       true,
	"idrac-redfish-virtual-media": true,
	"ilo-virtual-media":           true,
	"irmc-virtual-media":          true,
}

// DataImageBootRefusal refuses a data image (url) on a host whose boot
// interface needs the virtual CD: Ironic inserts the host's boot ISO there
// (deploying, cleaning, inspecting), so the two would take turns ejecting
// each other. Nil when the host boots otherwise (or its interface is not
// known).
func DataImageBootRefusal(obs Observation, url string) *DataImageRefusal {
	if !virtualMediaBoot[obs.BootInterface] {
		return nil
	}
	return &DataImageRefusal{Attribute: "host_id", Summary: "Host boots from virtual media",
		Detail: fmt.Sprintf("The data image %s cannot go on host %q (node %s): its boot_interface %q boots it from the "+
			"BMC's virtual CD, where Ironic inserts its deploy ISO, and the data image needs that device. Attach data images "+
			"to hosts that boot over the network (a redfish:// address, or boot_interface ipxe, pxe or redfish-https).",
			url, hostLabel(obs), obs.ID, obs.BootInterface)}
}

// dataImageRefusals are the refusals of the host obs for a data image
// (url) that need no BMC: detached, or booting from virtual media.
func dataImageRefusals(obs Observation, url string) []DataImageRefusal {
	if d := AsDetached(CheckAttached(obs, "attach a data image")); d != nil {
		return []DataImageRefusal{{Attribute: "host_id", Summary: d.Summary(), Detail: d.Detail()}}
	}
	if r := DataImageBootRefusal(obs, url); r != nil {
		return []DataImageRefusal{*r}
	}
	return nil
}

// CheckDataImage is AttachDataImage's plan-time half: the refusals for a
// host that exists (none for one created in the same apply, or that cannot
// be read now: the apply checks again): detached, booting from virtual
// media, or a BMC without virtual media (read with access, when known).
func (c *Clients) CheckDataImage(ctx context.Context, ref, url string, access *BMCAccess) []DataImageRefusal {
	obs, err := c.Machine.Observe(ctx, HostRef{ID: ref})
	if err != nil || !obs.Exists {
		return nil
	}
	if r := dataImageRefusals(obs, url); r != nil {
		return r
	}
	if access == nil {
		return nil
	}
	v, _, err := c.mediaBMC()
	if err != nil {
		return nil
	}
	if _, err := v.CDMedia(ctx, obs.ID, *access); errors.Is(err, ErrNoVirtualMedia) {
		return []DataImageRefusal{noMediaRefusal(obs, err)}
	}
	return nil
}

// DataImageRequest asks for one image on one host's virtual media.
type DataImageRequest struct {
	// Ref is the host's node UUID or name.
	Ref    string
	URL    string
	Access BMCAccess
	Log    Logger
}

// AttachDataImage inserts req.URL in the host's CD virtual media through
// its BMC, the node in maintenance for the duration: refused (with the
// refusals, no error, and nothing written) when the host is missing,
// detached or boots from virtual media, or its BMC has no virtual media. It returns the host and the device as read back.
func (c *Clients) AttachDataImage(ctx context.Context, req DataImageRequest) (Observation, MediaState, []DataImageRefusal, error) {
	obs, err := c.Machine.Observe(ctx, HostRef{ID: req.Ref})
	switch {
	case err != nil:
		return obs, MediaState{}, nil, fmt.Errorf("reading host %s: %w", req.Ref, err)
	case !obs.Exists:
		return obs, MediaState{}, []DataImageRefusal{{Attribute: "host_id", Summary: "Host not found",
			Detail: fmt.Sprintf("No Ironic node has the UUID or name %q: create it with baremetal_host first.", req.Ref)}}, nil
	}
	if r := dataImageRefusals(obs, req.URL); r != nil {
		return obs, MediaState{}, r, nil
	}
	v, m, err := c.mediaBMC()
	if err != nil {
		return obs, MediaState{}, nil, err
	}
	if _, err := v.CDMedia(ctx, obs.ID, req.Access); errors.Is(err, ErrNoVirtualMedia) {
		return obs, MediaState{}, []DataImageRefusal{noMediaRefusal(obs, err)}, nil
	} else if err != nil {
		return obs, MediaState{}, nil, fmt.Errorf("host %q (node %s): reading its virtual media: %w", hostLabel(obs), obs.ID, err)
	}
	var ms MediaState
	err = WithOwnMaintenance(ctx, m, req.Log, hostLabel(obs), obs.ID, MaintenanceReasonDataImage,
		MaintenanceReasonDataImage+" "+req.URL+" inserted through the BMC's Redfish VirtualMedia", func() error {
			var ierr error
			ms, ierr = v.InsertCDMedia(ctx, obs.ID, req.Access, req.URL)
			return ierr
		})
	if err != nil {
		return obs, ms, nil, fmt.Errorf("host %q (node %s): inserting the data image %s: %w", hostLabel(obs), obs.ID, req.URL, err)
	}
	if !ms.Inserted || ms.Image != req.URL {
		return obs, ms, nil, fmt.Errorf("host %q (node %s): the BMC accepted the data image %s but its virtual media %s "+
			"shows %q (inserted %t)", hostLabel(obs), obs.ID, req.URL, ms.Device, ms.Image, ms.Inserted)
	}
	return obs, ms, nil, nil
}

// ReadDataImage reads the host's CD virtual media: exists is false when
// the host is gone.
func (c *Clients) ReadDataImage(ctx context.Context, ref string, access BMCAccess) (obs Observation, ms MediaState, err error) {
	obs, err = c.Machine.Observe(ctx, HostRef{ID: ref})
	if err != nil || !obs.Exists {
		return obs, ms, err
	}
	v, _, err := c.mediaBMC()
	if err != nil {
		return obs, ms, err
	}
	ms, err = v.CDMedia(ctx, obs.ID, access)
	if errors.Is(err, ErrNoVirtualMedia) {
		return obs, MediaState{}, nil
	}
	return obs, ms, err
}

// DetachDataImage ejects req.URL from the host's virtual media, the node
// in maintenance for the duration. A host that is gone has nothing to
// eject; a detached one is forgotten (a *DetachedError with Forgotten, and
// nothing done); media other than req.URL is left in place.
func (c *Clients) DetachDataImage(ctx context.Context, req DataImageRequest) error {
	obs, err := c.Machine.Observe(ctx, HostRef{ID: req.Ref})
	if err != nil {
		return fmt.Errorf("reading host %s: %w", req.Ref, err)
	}
	if !obs.Exists {
		return nil
	}
	if err := ForgetDetached(obs, "eject the data image"); err != nil {
		return err
	}
	v, m, err := c.mediaBMC()
	if err != nil {
		return err
	}
	cur, err := v.CDMedia(ctx, obs.ID, req.Access)
	if errors.Is(err, ErrNoVirtualMedia) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("host %q (node %s): reading its virtual media: %w", hostLabel(obs), obs.ID, err)
	}
	if !cur.Inserted || cur.Image != req.URL {
		logTo(ctx, req.Log, "data image already ejected: nothing to do", map[string]any{"host": hostLabel(obs), "image": cur.Image})
		return nil
	}
	return WithOwnMaintenance(ctx, m, req.Log, hostLabel(obs), obs.ID, MaintenanceReasonDataImage,
		MaintenanceReasonDataImage+" "+req.URL+" ejected through the BMC's Redfish VirtualMedia", func() error {
			return v.EjectCDMedia(ctx, obs.ID, req.Access, req.URL)
		})
}
