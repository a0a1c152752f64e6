package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// This file is the baremetal_data_image resource's side of BMO's
// DataImage: a non-bootable ISO attached to a host's virtual media. On an
// Ironic with the virtual media API (FeatureVirtualMedia, 1.89: attach and
// detach; FeatureVirtualMediaGet, 1.93: read) Ironic drives the BMC with
// the credentials it keeps, so none are needed here. On an older one
// (Ironic 21.4 is 1.82) the ISO goes in through the BMC's Redfish
// VirtualMedia.InsertMedia with the node in maintenance for the duration,
// the way a firmware update goes through the BMC
// (UpdateFirmwareThroughBMC): Ironic's power and boot handling must not act
// on the node while its BMC is driven behind its back. Only the
// maintenance this set is ended afterwards.

// ErrNoVirtualMedia says that a host's BMC has no virtual media device that
// takes a CD or DVD image.
var ErrNoVirtualMedia = errors.New("the BMC has no virtual media device for CD or DVD images")

// MediaState is the CD/DVD virtual media device of a host's BMC.
type MediaState struct {
	// Device is the device's Redfish Id, or MediaDeviceIronic through
	// Ironic's API.
	Device string
	// Image is the URL of the image inserted; "" when none is.
	Image    string
	Inserted bool
	// Unread is true when nothing could read the device: Ironic 1.89 to
	// 1.92 (attach without read) and no BMC credentials.
	Unread bool
	// Republished is true when the device holds Ironic's own copy of an
	// image attached through its API (Ironic 2025.1 serves it from its
	// HTTP server as .../cdrom-<node>.iso, whatever URL it was given).
	Republished bool
}

// Holds reports whether the device holds url: that very URL, or Ironic's
// copy of the image attached through its API (taken to be url).
func (m MediaState) Holds(url string) bool {
	return m.Inserted && (m.Image == url || m.Republished)
}

// MediaDeviceIronic is the device of an image attached through Ironic's
// virtual media API (its device_type).
const MediaDeviceIronic = "cdrom"

// VirtualMediaAPI attaches, detaches and reads a node's CD virtual media
// through Ironic's API, which drives the BMC with the credentials Ironic
// keeps. internal/ironic implements it on its Catalog.
type VirtualMediaAPI interface {
	// AttachCDMedia attaches url (POST .../vmedia, 1.89) and waits for the
	// conductor to be done; an error with Ironic's last_error on failure.
	AttachCDMedia(ctx context.Context, id, url string) error
	// DetachCDMedia detaches the CD (DELETE .../vmedia, 1.89) and waits.
	DetachCDMedia(ctx context.Context, id string) error
	// CDMediaState reads the CD device (GET .../vmedia, 1.93).
	CDMediaState(ctx context.Context, id string) (MediaState, error)
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

// dataImageWithoutBMC names what needs FeatureVirtualMedia.
const dataImageWithoutBMC = "a data image without bmc (through Ironic's virtual media API)"

// mediaPath is how a data image reaches a host's CD virtual media:
// Ironic's API (ironicPath) or the BMC's Redfish (bmcPath).
type mediaPath interface {
	// read reads the device: an error wrapping ErrNoVirtualMedia when the
	// BMC has none.
	read(ctx context.Context, id string) (MediaState, error)
	// insert puts req.URL in the device, which holds cur.
	insert(ctx context.Context, obs Observation, req DataImageRequest, cur MediaState) (MediaState, error)
	eject(ctx context.Context, obs Observation, req DataImageRequest) error
}

// bmcPath drives the BMC with the caller's credentials, the node in
// maintenance while it does.
type bmcPath struct {
	v      VirtualMediaBMC
	m      Maintainer
	access BMCAccess
}

func (b bmcPath) read(ctx context.Context, id string) (MediaState, error) {
	return b.v.CDMedia(ctx, id, b.access)
}

func (b bmcPath) insert(ctx context.Context, obs Observation, req DataImageRequest, _ MediaState) (ms MediaState, err error) {
	err = b.inMaintenance(ctx, obs, req, "inserted", func() error {
		ms, err = b.v.InsertCDMedia(ctx, obs.ID, b.access, req.URL)
		return err
	})
	return ms, err
}

func (b bmcPath) eject(ctx context.Context, obs Observation, req DataImageRequest) error {
	return b.inMaintenance(ctx, obs, req, "ejected", func() error { return b.v.EjectCDMedia(ctx, obs.ID, b.access, req.URL) })
}

func (b bmcPath) inMaintenance(ctx context.Context, obs Observation, req DataImageRequest, done string, fn func() error) error {
	return WithOwnMaintenance(ctx, b.m, req.Log, hostLabel(obs), obs.ID, MaintenanceReasonDataImage,
		MaintenanceReasonDataImage+" "+req.URL+" "+done+" through the BMC's Redfish VirtualMedia", fn)
}

// ironicPath goes through Ironic's virtual media API; it reads through
// the API from 1.93, else through the BMC when credentials are given.
type ironicPath struct {
	api    VirtualMediaAPI
	canGet bool
	bmc    *bmcPath
}

func (p ironicPath) read(ctx context.Context, id string) (ms MediaState, err error) {
	switch {
	case p.canGet:
		ms, err = p.api.CDMediaState(ctx, id)
	case p.bmc != nil:
		ms, err = p.bmc.read(ctx, id)
	default:
		return MediaState{Device: MediaDeviceIronic, Unread: true}, nil
	}
	ms.Republished = ms.Inserted && strings.HasSuffix(ms.Image, "/cdrom-"+id+".iso")
	return ms, err
}

func (p ironicPath) insert(ctx context.Context, obs Observation, req DataImageRequest, cur MediaState) (MediaState, error) {
	if cur.Unread || cur.Inserted && (cur.Republished || cur.Image != req.URL) { // Ironic does not replace an image
		if err := p.api.DetachCDMedia(ctx, obs.ID); err != nil {
			return cur, fmt.Errorf("detaching the image the device holds: %w", err)
		}
	}
	if err := p.api.AttachCDMedia(ctx, obs.ID, req.URL); err != nil {
		return MediaState{}, err
	}
	ms, err := p.read(ctx, obs.ID)
	if ms.Unread {
		ms = MediaState{Device: MediaDeviceIronic, Image: req.URL, Inserted: true}
	}
	return ms, err
}

func (p ironicPath) eject(ctx context.Context, obs Observation, _ DataImageRequest) error {
	return p.api.DetachCDMedia(ctx, obs.ID)
}

// vmediaHardwareTypes are the hardware types whose virtual media Ironic's
// API attaches (its image publishers: others fail in the background with
// "Publishing images is not supported for driver ...").
var vmediaHardwareTypes = []string{"redfish", "idrac", "ilo", "ilo5"}

// mediaPath picks Ironic's virtual media API when the Ironic in use has it
// (no credentials needed) for the node's driver, else the BMC with access;
// a refusal on bmc when access is nil and Ironic cannot.
func (c *Clients) mediaPath(access *BMCAccess, driver string) (mediaPath, *DataImageRefusal, error) {
	var bp *bmcPath
	if access != nil {
		v, m, err := c.mediaBMC()
		if err != nil {
			return nil, nil, err
		}
		bp = &bmcPath{v: v, m: m, access: *access}
	}
	api, ok := c.Catalog.(VirtualMediaAPI)
	ironicCan := ok && c.API.Has(FeatureVirtualMedia)
	if ironicCan && slices.Contains(vmediaHardwareTypes, driver) {
		return ironicPath{api: api, canGet: c.API.Has(FeatureVirtualMediaGet), bmc: bp}, nil, nil
	}
	if bp != nil {
		return *bp, nil, nil
	}
	if r := c.DataImageNeedsBMC(); r != nil {
		return nil, r, nil
	}
	if ironicCan {
		return nil, &DataImageRefusal{Attribute: "bmc", Summary: "BMC credentials needed for this host",
			Detail: fmt.Sprintf("Ironic attaches virtual media only for the %s hardware types; this host's node has the %q "+
				"driver. Set bmc (address, username, password): the image then goes in through the BMC's Redfish VirtualMedia.",
				strings.Join(vmediaHardwareTypes, ", "), driver)}, nil
	}
	return nil, nil, errors.New("a data image needs bmc (the BMC's address and credentials) on this Ironic")
}

// DataImageNeedsBMC is the refusal of a data image without bmc on an
// Ironic without the virtual media API; nil when it has it, or when the
// Ironic in use is not known yet.
func (c *Clients) DataImageNeedsBMC() *DataImageRefusal {
	err := c.API.Require(FeatureVirtualMedia, dataImageWithoutBMC)
	if err == nil {
		return nil
	}
	return &DataImageRefusal{Attribute: "bmc", Summary: "BMC credentials needed on this Ironic",
		Detail: err.Error() + ". Set bmc (address, username, password): the image then goes in through the BMC's Redfish VirtualMedia."}
}

// CheckDataImage is AttachDataImage's plan-time half: the refusals for a
// host that exists (none for one created in the same apply, or that cannot
// be read now: the apply checks again): detached, booting from virtual
// media, or a BMC without virtual media (read through the BMC with access,
// when known).
func (c *Clients) CheckDataImage(ctx context.Context, ref, url string, access *BMCAccess) []DataImageRefusal {
	obs, err := c.Machine.Observe(ctx, HostRef{ID: ref})
	if err != nil || !obs.Exists {
		return nil
	}
	if r := dataImageRefusals(obs, url); r != nil {
		return r
	}
	p, _, err := c.mediaPath(access, obs.Driver)
	bp, ok := p.(bmcPath)
	if ip, isIronic := p.(ironicPath); isIronic && ip.bmc != nil {
		bp, ok = *ip.bmc, true // Ironic's GET takes the node's lock: not at plan
	}
	if err != nil || !ok {
		return nil
	}
	if _, err := bp.read(ctx, obs.ID); errors.Is(err, ErrNoVirtualMedia) {
		return []DataImageRefusal{noMediaRefusal(obs, err)}
	}
	return nil
}

// DataImageRequest asks for one image on one host's virtual media.
type DataImageRequest struct {
	// Ref is the host's node UUID or name.
	Ref string
	URL string
	// Access is the BMC's, nil when not given (Ironic's API then).
	Access *BMCAccess
	Log    Logger
}

// AttachDataImage inserts req.URL in the host's CD virtual media, through
// Ironic's API or its BMC (mediaPath): refused (with the refusals, and no
// error, and nothing written) when the host is missing, detached or boots
// from virtual media, its BMC has no virtual media, or bmc is needed and
// not given. It returns the host and the device as read back.
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
	p, refusal, err := c.mediaPath(req.Access, obs.Driver)
	if refusal != nil || err != nil {
		return obs, MediaState{}, refusals(refusal), err
	}
	cur, err := p.read(ctx, obs.ID)
	if errors.Is(err, ErrNoVirtualMedia) {
		return obs, MediaState{}, []DataImageRefusal{noMediaRefusal(obs, err)}, nil
	} else if err != nil {
		return obs, MediaState{}, nil, fmt.Errorf("host %q (node %s): reading its virtual media: %w", hostLabel(obs), obs.ID, err)
	}
	ms, err := p.insert(ctx, obs, req, cur)
	if err != nil {
		return obs, ms, nil, fmt.Errorf("host %q (node %s): inserting the data image %s: %w", hostLabel(obs), obs.ID, req.URL, err)
	}
	if !ms.Holds(req.URL) {
		return obs, ms, nil, fmt.Errorf("host %q (node %s): the BMC accepted the data image %s but its virtual media %s "+
			"shows %q (inserted %t)", hostLabel(obs), obs.ID, req.URL, ms.Device, ms.Image, ms.Inserted)
	}
	return obs, ms, nil, nil
}

func refusals(r *DataImageRefusal) []DataImageRefusal {
	if r == nil {
		return nil
	}
	return []DataImageRefusal{*r}
}

// ReadDataImage reads the host's CD virtual media: exists is false when
// the host is gone; ms.Unread when nothing can read it.
func (c *Clients) ReadDataImage(ctx context.Context, ref string, access *BMCAccess) (obs Observation, ms MediaState, err error) {
	obs, err = c.Machine.Observe(ctx, HostRef{ID: ref})
	if err != nil {
		return obs, ms, err
	}
	if !obs.Exists {
		return obs, ms, nil
	}
	p, refusal, err := c.mediaPath(access, obs.Driver)
	if err != nil {
		return obs, ms, err
	}
	if refusal != nil {
		return obs, MediaState{Unread: true}, nil //nolint:nilerr // a refusal (an error type) here means the device cannot be read, not a failure
	}
	ms, err = p.read(ctx, obs.ID)
	if errors.Is(err, ErrNoVirtualMedia) {
		return obs, MediaState{}, nil
	}
	return obs, ms, err
}

// DetachDataImage ejects req.URL from the host's virtual media. A host
// that is gone has nothing to eject; a detached one is forgotten (a
// *DetachedError with Forgotten, and nothing done); media other than
// req.URL is left in place (when the device can be read).
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
	p, refusal, err := c.mediaPath(req.Access, obs.Driver)
	if refusal != nil {
		return errors.New(refusal.Detail)
	}
	if err != nil {
		return err
	}
	cur, err := p.read(ctx, obs.ID)
	if errors.Is(err, ErrNoVirtualMedia) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("host %q (node %s): reading its virtual media: %w", hostLabel(obs), obs.ID, err)
	}
	if !cur.Unread && !cur.Holds(req.URL) {
		logTo(ctx, req.Log, "data image already ejected: nothing to do", map[string]any{"host": hostLabel(obs), "image": cur.Image})
		return nil
	}
	return p.eject(ctx, obs, req)
}
