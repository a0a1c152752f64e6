package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

type fakeMaint struct {
	on      bool
	reason  string
	sets    []string
	failOff bool
}

func (f *fakeMaint) Maintenance(context.Context, string) (bool, string, error) {
	return f.on, f.reason, nil
}

func (f *fakeMaint) SetMaintenance(_ context.Context, _ string, on bool, reason string) error {
	if !on && f.failOff {
		return errors.New("ironic down")
	}
	f.on, f.reason = on, reason
	if on {
		f.sets = append(f.sets, "on:"+reason)
	} else {
		f.sets = append(f.sets, "off")
	}
	return nil
}

// WithOwnMaintenance ends only the maintenance it set: after success and
// after failure; a maintenance of someone else's, from before or taken over
// meanwhile, is left; a maintenance it cannot end is an error saying so.
func TestWithOwnMaintenance(t *testing.T) {
	ctx := context.Background()
	reason := MaintenanceReasonDataImage + " x"

	f := &fakeMaint{}
	err := WithOwnMaintenance(ctx, f, nil, "h", "id", MaintenanceReasonDataImage, reason, func() error {
		if !f.on || f.reason != reason {
			t.Errorf("during fn: maintenance %v %q", f.on, f.reason)
		}
		return nil
	})
	if err != nil || f.on || strings.Join(f.sets, ",") != "on:"+reason+",off" {
		t.Fatalf("success: err %v, on %v, sets %q", err, f.on, f.sets)
	}

	f = &fakeMaint{}
	boom := errors.New("BMC said no")
	if err := WithOwnMaintenance(ctx, f, nil, "h", "id", MaintenanceReasonDataImage, reason, func() error { return boom }); !errors.Is(err, boom) || f.on {
		t.Fatalf("failure: err %v, on %v", err, f.on)
	}

	f = &fakeMaint{on: true, reason: "operator: disk swap"}
	if err := WithOwnMaintenance(ctx, f, nil, "h", "id", MaintenanceReasonDataImage, reason, func() error { return nil }); err != nil || !f.on ||
		f.reason != "operator: disk swap" || len(f.sets) != 0 {
		t.Fatalf("someone else's maintenance: err %v, %v %q, sets %q", err, f.on, f.reason, f.sets)
	}

	f = &fakeMaint{}
	err = WithOwnMaintenance(ctx, f, nil, "h", "id", MaintenanceReasonDataImage, reason, func() error {
		f.reason = DetachReason // detached meanwhile
		return nil
	})
	if err != nil || !f.on || f.reason != DetachReason {
		t.Fatalf("taken over: err %v, %v %q", err, f.on, f.reason)
	}

	f = &fakeMaint{failOff: true}
	err = WithOwnMaintenance(ctx, f, nil, "h", "id", MaintenanceReasonDataImage, reason, func() error { return nil })
	if err == nil || !strings.Contains(err.Error(), "STILL IN MAINTENANCE") {
		t.Fatalf("cannot clear: %v", err)
	}
}

// A data image is refused on a host whose boot interface boots it from the
// BMC's virtual CD, naming the image and the interface; a host that boots
// over the network, or whose interface is not read, is not.
func TestDataImageBootRefusal(t *testing.T) {
	const url = "http://images.example.com/ignition.iso"
	for boot, refused := range map[string]bool{
		"redfish-virtual-media": true, "idrac-redfish-virtual-media": true, "ilo-virtual-media": true, "irmc-virtual-media": true,
		"ipxe": false, "pxe": false, "redfish-https": false, "": false,
	} {
		r := DataImageBootRefusal(Observation{Exists: true, ID: "node-1", Name: "host-a", BootInterface: boot}, url)
		want := `The data image ` + url + ` cannot go on host "host-a" (node node-1): its boot_interface "` + boot + `" boots it from the BMC's virtual CD`
		switch {
		case !refused && r != nil:
			t.Errorf("%q: refused: %+v", boot, r)
		case refused && (r == nil || r.Attribute != "host_id" || r.Summary != "Host boots from virtual media" || !strings.HasPrefix(r.Detail, want)):
			t.Errorf("%q: refusal %+v, want one on host_id saying %q", boot, r, want)
		}
	}
}

// fakeMedia is a BMC with a CD virtual media device (none with noDevice)
// behind a FirmwareUpdater, whose maintenance is fakeMaint's.
type fakeMedia struct {
	fakeMaint
	noDevice  bool
	readErr   error
	insertErr error
	readBack  string // what the device shows after an insert ("": the URL)
	state     MediaState
	acts      []string // inserts and ejects, with the maintenance at the time
}

func (f *fakeMedia) VerifyImage(context.Context, FirmwareUpdate) error { return nil }
func (f *fakeMedia) BMCUpdate(context.Context, string, BMCAccess, FirmwareUpdate, func(FirmwareTask)) (FirmwareUpdateResult, error) {
	return FirmwareUpdateResult{}, errors.New("not a firmware updater")
}

func (f *fakeMedia) CDMedia(context.Context, string, BMCAccess) (MediaState, error) {
	switch {
	case f.noDevice:
		return MediaState{}, fmt.Errorf("system 1: %w", ErrNoVirtualMedia)
	case f.readErr != nil:
		return MediaState{}, f.readErr
	}
	return f.state, nil
}

func (f *fakeMedia) act(what string) {
	f.acts = append(f.acts, fmt.Sprintf("%s maintenance=%v", what, f.on))
}

func (f *fakeMedia) InsertCDMedia(_ context.Context, _ string, _ BMCAccess, url string) (MediaState, error) {
	f.act("insert " + url)
	if f.insertErr != nil {
		return MediaState{}, f.insertErr
	}
	f.state = MediaState{Device: "Cd", Image: url, Inserted: true}
	if f.readBack != "" {
		f.state.Image = f.readBack
	}
	return f.state, nil
}

func (f *fakeMedia) EjectCDMedia(_ context.Context, _ string, _ BMCAccess, url string) error {
	f.act("eject " + url)
	f.state = MediaState{Device: "Cd"}
	return nil
}

const isoURL = "http://img/data.iso"

type dataImageCase struct {
	name   string
	obs    Observation
	obsErr error
	media  *fakeMedia // nil: no virtual media client
	want   string     // a part of the error, or of the refusal's summary and detail; "" for neither
	acts   string     // what was done to the media
	maint  string     // the maintenance changes
}

// dataImageRun runs each case's host through run, which returns its
// refusals and error.
func dataImageRun(t *testing.T, cases []dataImageCase, run func(*Clients) ([]DataImageRefusal, error)) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv()
			e.prov.always("Observe", provReply{obs: c.obs, err: c.obsErr})
			cl := &Clients{Machine: e.m}
			if c.media != nil {
				cl.Updater = c.media
			} else {
				c.media = &fakeMedia{}
			}
			refusals, err := run(cl)
			got := ""
			for _, r := range refusals {
				got += r.Attribute + ": " + r.Summary + ": " + r.Detail
			}
			if err != nil {
				got += err.Error()
			}
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			if acts := strings.Join(c.media.acts, ","); acts != c.acts {
				t.Errorf("media %q, want %q", acts, c.acts)
			}
			if m := strings.Join(c.media.sets, ","); m != c.maint {
				t.Errorf("maintenance %q, want %q", m, c.maint)
			}
		})
	}
}

var (
	hostObs     = Observation{Exists: true, ID: "node-1", Name: "h", State: StateProvisioned}
	detachedObs = Observation{Exists: true, ID: "node-1", Name: "h", Maintenance: true, MaintenanceReason: DetachReason}
	operatorObs = Observation{Exists: true, ID: "node-1", Name: "h", Maintenance: true, MaintenanceReason: "disk swap"}
	inMaint     = "on:" + MaintenanceReasonDataImage + " " + isoURL
)

// A data image goes in through the BMC with the node in the provider's
// maintenance; missing and detached hosts and BMCs without virtual media
// are refused, with nothing done.
func TestAttachDataImage(t *testing.T) {
	attached := inMaint + " inserted through the BMC's Redfish VirtualMedia,off"
	dataImageRun(t, []dataImageCase{
		{name: "inserted", obs: hostObs, media: &fakeMedia{}, acts: "insert " + isoURL + " maintenance=true", maint: attached},
		{name: "unreadable host", obsErr: errors.New("ironic down"), want: "reading host node-1: ironic down"},
		{name: "missing host", media: &fakeMedia{}, want: `host_id: Host not found: No Ironic node has the UUID or name "node-1"`},
		{name: "detached", obs: detachedObs, media: &fakeMedia{}, want: `host_id: Host h is detached: Host "h" (node node-1) is detached`},
		{name: "no client", obs: hostObs, want: "the provider has no BMC virtual media client configured"},
		{name: "no device", obs: hostObs, media: &fakeMedia{noDevice: true},
			want: `host_id: Host has no virtual media: Host "h" (node node-1) cannot take a data image: system 1: the BMC has no virtual media device`},
		{name: "device unreadable", obs: hostObs, media: &fakeMedia{readErr: errors.New("HTTP 500")},
			want: `host "h" (node node-1): reading its virtual media: HTTP 500`},
		{name: "insert fails", obs: hostObs, media: &fakeMedia{insertErr: errors.New("HTTP 400")}, acts: "insert " + isoURL + " maintenance=true",
			maint: attached, want: `host "h" (node node-1): inserting the data image ` + isoURL + ": HTTP 400"},
		{name: "another image read back", obs: hostObs, media: &fakeMedia{readBack: "http://img/other.iso"}, acts: "insert " + isoURL + " maintenance=true",
			maint: attached, want: `the BMC accepted the data image ` + isoURL + ` but its virtual media Cd shows "http://img/other.iso" (inserted true)`},
		{name: "operator maintenance stays", obs: operatorObs, media: &fakeMedia{fakeMaint: fakeMaint{on: true, reason: "disk swap"}},
			acts: "insert " + isoURL + " maintenance=true"},
	}, func(c *Clients) ([]DataImageRefusal, error) {
		_, ms, refusals, err := c.AttachDataImage(ctxBG, DataImageRequest{Ref: "node-1", URL: isoURL, Access: &BMCAccess{}})
		if err == nil && refusals == nil && (!ms.Inserted || ms.Image != isoURL) {
			return nil, fmt.Errorf("read back %+v", ms)
		}
		return refusals, err
	})
}

// The plan-time half refuses what the apply would, and nothing it cannot
// judge yet.
func TestCheckDataImage(t *testing.T) {
	dataImageRun(t, []dataImageCase{
		{name: "fine", obs: hostObs, media: &fakeMedia{}},
		{name: "unreadable host: the apply judges", obsErr: errors.New("ironic down")},
		{name: "host created in this apply", media: &fakeMedia{noDevice: true}},
		{name: "detached", obs: detachedObs, want: "Host h is detached"},
		{name: "no client: the apply says", obs: hostObs},
		{name: "no device", obs: hostObs, media: &fakeMedia{noDevice: true}, want: "Host has no virtual media"},
		{name: "device unreadable: the apply judges", obs: hostObs, media: &fakeMedia{readErr: errors.New("HTTP 500")}},
	}, func(c *Clients) ([]DataImageRefusal, error) {
		return c.CheckDataImage(ctxBG, "node-1", "http://images.example/data.iso", &BMCAccess{}), nil
	})
	e := newEnv()
	e.prov.always("Observe", provReply{obs: hostObs})
	if r := (&Clients{Machine: e.m, Updater: &fakeMedia{noDevice: true}}).CheckDataImage(ctxBG, "node-1", "http://images.example/data.iso", nil); r != nil {
		t.Errorf("no BMC access known yet: %+v", r)
	}
}

// Ejecting takes out only the image the resource inserted, in
// maintenance; a gone host or BMC without media has nothing to eject, and
// a detached host is forgotten.
func TestDetachDataImage(t *testing.T) {
	ours := MediaState{Device: "Cd", Image: isoURL, Inserted: true}
	dataImageRun(t, []dataImageCase{
		{name: "ejected", obs: hostObs, media: &fakeMedia{state: ours}, acts: "eject " + isoURL + " maintenance=true",
			maint: inMaint + " ejected through the BMC's Redfish VirtualMedia,off"},
		{name: "another image stays", obs: hostObs, media: &fakeMedia{state: MediaState{Image: "http://img/other.iso", Inserted: true}}},
		{name: "nothing inserted", obs: hostObs, media: &fakeMedia{state: MediaState{Image: isoURL}}},
		{name: "gone host", media: &fakeMedia{state: ours}},
		{name: "unreadable host", obsErr: errors.New("ironic down"), want: "reading host node-1: ironic down"},
		{name: "detached: forgotten", obs: detachedObs, media: &fakeMedia{state: ours}, want: "forgotten without acting on it"},
		{name: "no client", obs: hostObs, want: "no BMC virtual media client"},
		{name: "no device", obs: hostObs, media: &fakeMedia{noDevice: true}},
		{name: "device unreadable", obs: hostObs, media: &fakeMedia{readErr: errors.New("HTTP 500")}, want: "reading its virtual media: HTTP 500"},
	}, func(c *Clients) ([]DataImageRefusal, error) {
		err := c.DetachDataImage(ctxBG, DataImageRequest{Ref: "node-1", URL: isoURL, Access: &BMCAccess{}})
		if d := AsDetached(err); d != nil && !d.Forgotten {
			return nil, errors.New("detached, not forgotten")
		}
		return nil, err
	})
}

// Reading the media: a gone host does not exist, a BMC without media has
// none inserted.
func TestReadDataImage(t *testing.T) {
	inserted := MediaState{Device: "Cd", Image: isoURL, Inserted: true}
	dataImageRun(t, []dataImageCase{
		{name: "inserted", obs: hostObs, media: &fakeMedia{state: inserted}, want: "exists, inserted " + isoURL},
		{name: "gone host", media: &fakeMedia{state: inserted}, want: "gone"},
		{name: "no device", obs: hostObs, media: &fakeMedia{noDevice: true, state: inserted}, want: "exists, none inserted"},
		{name: "no client", obs: hostObs, want: "no BMC virtual media client"},
		{name: "device unreadable", obs: hostObs, media: &fakeMedia{readErr: errors.New("HTTP 500")}, want: "HTTP 500"},
	}, func(c *Clients) ([]DataImageRefusal, error) {
		obs, ms, err := c.ReadDataImage(ctxBG, "node-1", &BMCAccess{})
		switch {
		case err != nil:
			return nil, err
		case !obs.Exists:
			return nil, errors.New("gone")
		case !ms.Inserted:
			return nil, errors.New("exists, none inserted")
		}
		return nil, errors.New("exists, inserted " + ms.Image)
	})
}
