package bmc

import (
	"context"
	"crypto/md5"  //nolint:gosec // a checksum the user chose, not a security boundary
	"crypto/sha1" //nolint:gosec // idem
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/stmcginnis/gofish/schemas"
)

// UpdateTask is a BMC task as last polled.
type UpdateTask struct {
	URI     string
	State   string // Redfish TaskState
	Status  string // Redfish TaskStatus (OK, Warning, Critical)
	Percent int    // -1 when the BMC does not say
	Message string // the last of the task's messages
}

// UpdateOptions tune UpdateFirmware.
type UpdateOptions struct {
	// PollInterval, when set, is the first wait between two polls of the
	// task, growing by half up to MaxPollInterval. Unset, the BMC's
	// Retry-After is used as it is, else 2s growing.
	PollInterval time.Duration
	// MaxPollInterval caps the wait between polls; default 15s.
	MaxPollInterval time.Duration
	// Progress, if set, is called after every poll.
	Progress func(UpdateTask)
	// OnPending, if set, is called once when the task is Pending: the BMC
	// staged the image and applies it at the next boot (BIOS and device
	// firmware on most BMCs), so the caller reboots the system.
	OnPending func() error
}

// ErrUpdateFailed is the kind of an update task that ended in failure.
var ErrUpdateFailed = errors.New("firmware update failed")

// ResolveFirmwareComponent finds the inventory item a component name means:
// "redfish:<Id>" the item with that Id; "bios" the one whose Id or Name says
// BIOS, System ROM (iLO) or UEFI (Lenovo); "bmc" the one that says BMC,
// iDRAC, iLO, iRMC or XClarity Controller; "nic:<id>" the one whose Id is
// or ends with <id>. Of several matches, the image the BMC runs is the one
// (not iLO's "Redundant System ROM", iDRAC's "Previous-" rollback image,
// Lenovo's "-Backup", nor an item in standby). An ambiguous or missing
// match is an error listing the items.
func ResolveFirmwareComponent(items []FirmwareComponent, component string) (FirmwareComponent, error) {
	var match func(FirmwareComponent) bool
	has := func(c FirmwareComponent, words ...string) bool {
		s := strings.ToLower(c.ID + " " + c.Name)
		for _, w := range words {
			if strings.Contains(s, w) {
				return true
			}
		}
		return false
	}
	switch {
	case strings.HasPrefix(component, "redfish:"):
		id := strings.TrimPrefix(component, "redfish:")
		match = func(c FirmwareComponent) bool { return c.ID == id }
	case component == "bios":
		match = func(c FirmwareComponent) bool {
			return has(c, "bios", "system rom") || uefiRE.MatchString(c.ID) || uefiRE.MatchString(c.Name)
		}
	case component == "bmc":
		match = func(c FirmwareComponent) bool {
			return has(c, "bmc", "idrac", "irmc", "xclarity controller", "remote access controller") || iloRE.MatchString(c.ID+" "+c.Name)
		}
	case strings.HasPrefix(component, "nic:"):
		id := strings.TrimPrefix(component, "nic:")
		match = func(c FirmwareComponent) bool { return c.ID == id || strings.HasSuffix(c.ID, "-"+id) }
	default:
		return FirmwareComponent{}, fmt.Errorf("unknown component name %q", component)
	}
	var found, running []FirmwareComponent
	for _, c := range items {
		if match(c) {
			found = append(found, c)
			if !standbyImage(c) {
				running = append(running, c)
			}
		}
	}
	if len(found) > 1 && len(running) == 1 {
		found = running
	}
	ids := make([]string, len(items))
	for i, c := range items {
		ids[i] = fmt.Sprintf("%s (%s)", c.ID, c.Name)
	}
	switch len(found) {
	case 1:
		if !found[0].Updateable {
			return found[0], fmt.Errorf("component %s is the BMC's inventory item %s, which is not updateable", component, found[0].ID)
		}
		return found[0], nil
	case 0:
		return FirmwareComponent{}, fmt.Errorf("the BMC's firmware inventory has no item for component %s; its items: %s "+
			"(name one as \"redfish:<Id>\")", component, strings.Join(ids, ", "))
	}
	names := make([]string, len(found))
	for i, c := range found {
		names[i] = fmt.Sprintf("%s (%s)", c.ID, c.Name)
	}
	return FirmwareComponent{}, fmt.Errorf("component %s matches %d items of the BMC's firmware inventory (%s); name one as \"redfish:<Id>\"",
		component, len(found), strings.Join(names, ", "))
}

var (
	uefiRE = regexp.MustCompile(`(?i)^uefi($|[\s-])`) // Lenovo's BIOS, not "Dell 64 Bit uEFI Diagnostics"
	iloRE  = regexp.MustCompile(`(?i)\bilo\b`)
	// standbyRE are the words vendors mark the image they keep but do not
	// run with: iLO's "Redundant System ROM", iDRAC's "Previous-" (and
	// "Available-", staged but not installed), Lenovo's "BMC-Backup".
	standbyRE = regexp.MustCompile(`(?i)\b(redundant|backup|previous|available|rollback|inactive|secondary|standby)\b`)
)

// standbyImage reports that an inventory item is an image the BMC keeps
// but does not run.
func standbyImage(c FirmwareComponent) bool {
	switch schemas.State(c.State) {
	case schemas.StandbySpareState, schemas.StandbyOfflineState, schemas.DisabledState, schemas.AbsentState:
		return true
	}
	return standbyRE.MatchString(c.ID + " " + c.Name)
}

// UpdateFirmware installs imageURL on the inventory item (its @odata.id)
// with UpdateService.SimpleUpdate and polls the task until it ends. A task
// that ends in Exception, Killed or Cancelled (or with status Critical) is
// an ErrUpdateFailed RedfishError carrying the task's message.
func (c *RedfishClient) UpdateFirmware(ctx context.Context, target FirmwareComponent, imageURL string, opts UpdateOptions) (UpdateTask, error) {
	op := "update firmware " + target.ID
	if target.Name != "" && target.Name != target.ID {
		op += " (" + target.Name + ")"
	}
	us, err := c.api.Service.UpdateService()
	if err != nil {
		return UpdateTask{}, c.wrap("read update service", err)
	}
	if us == nil {
		return UpdateTask{}, &RedfishError{Endpoint: c.endpoint, Op: op, Kind: ErrNotFound, Detail: "the BMC has no UpdateService"}
	}
	info, err := us.SimpleUpdate(&schemas.UpdateServiceSimpleUpdateParameters{ImageURI: imageURL, Targets: []string{target.URI}})
	if err != nil {
		return UpdateTask{}, c.wrap(op+" (SimpleUpdate)", err)
	}
	if info == nil || info.TaskMonitor == "" {
		// Some BMCs apply at once and answer 200/204 without a task.
		return UpdateTask{State: string(schemas.CompletedTaskState), Percent: 100}, nil
	}
	maxInterval := opts.MaxPollInterval
	if maxInterval <= 0 {
		maxInterval = 15 * time.Second
	}
	interval, grow := opts.PollInterval, true
	switch {
	case interval > 0:
	case !info.RetryAfter.IsZero() && time.Until(info.RetryAfter) > 0:
		// The BMC says how often to ask: as often as that.
		interval, grow = min(time.Until(info.RetryAfter).Round(100*time.Millisecond), maxInterval), false
	default:
		interval = 2 * time.Second
	}
	uri := info.TaskMonitor
	task := UpdateTask{URI: uri, State: string(schemas.RunningTaskState), Percent: -1}
	if info.Task != nil {
		task = c.taskOf(uri, info.Task)
	}
	for {
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return task, &RedfishError{Endpoint: c.endpoint, Op: op, Kind: ErrTimeout,
				Detail: fmt.Sprintf("stopped waiting for task %s (%s, %d%%): %v", uri, task.State, task.Percent, ctx.Err())}
		case <-t.C:
		}
		raw, err := schemas.GetTask(c.api, uri)
		if err != nil {
			return task, c.wrap(op+": read task "+uri, err)
		}
		task = c.taskOf(uri, raw)
		if opts.Progress != nil {
			opts.Progress(task)
		}
		switch schemas.TaskState(task.State) {
		case schemas.PendingTaskState:
			if opts.OnPending != nil {
				if err := opts.OnPending(); err != nil {
					return task, fmt.Errorf("rebooting the system to apply the staged update (task %s): %w", uri, err)
				}
				opts.OnPending = nil
			}
		case schemas.CompletedTaskState:
			if task.Status == string(schemas.CriticalHealth) {
				return task, c.taskFailed(op, task)
			}
			return task, nil
		case schemas.ExceptionTaskState, schemas.KilledTaskState, schemas.CancelledTaskState:
			return task, c.taskFailed(op, task)
		}
		if grow {
			interval = min(interval*3/2, maxInterval)
		}
	}
}

func (c *RedfishClient) taskFailed(op string, t UpdateTask) error {
	msg := t.Message
	if msg == "" {
		msg = "the BMC gave no message"
	}
	return &RedfishError{Endpoint: c.endpoint, Op: op, Kind: ErrUpdateFailed,
		Detail: fmt.Sprintf("task %s ended %s (status %s): %s", t.URI, t.State, t.Status, c.redact(msg))}
}

func (c *RedfishClient) taskOf(uri string, t *schemas.Task) UpdateTask {
	out := UpdateTask{URI: uri, State: string(t.TaskState), Status: string(t.TaskStatus), Percent: -1}
	if t.ODataID != "" {
		out.URI = t.ODataID
	}
	if t.PercentComplete != nil {
		out.Percent = int(*t.PercentComplete)
	}
	if n := len(t.Messages); n > 0 {
		last := t.Messages[n-1]
		if out.Message = last.Message; out.Message == "" && last.MessageID != "" {
			out.Message = c.resolve(last.MessageID, "", last.MessageArgs, true).String()
		}
	}
	return out
}

// ResetSystem sends ComputerSystem.Reset of resetType (On, ForceOff,
// ForceRestart, ...) to systemID. A reset to the power state the system is
// in is success, though BMCs refuse it (iLO: 400
// InvalidOperationForSystemState; iDRAC: 409 PSU501/PSU502): the system is
// where it was asked to be.
func (c *RedfishClient) ResetSystem(systemID, resetType string) error {
	sys, err := c.system(systemID)
	if err != nil {
		return err
	}
	if _, err := sys.Reset(schemas.ResetType(resetType)); err != nil {
		if want := resetTarget(resetType); want != "" && (isStatus(err, http.StatusBadRequest) || isStatus(err, http.StatusConflict)) {
			if now, nerr := c.system(systemID); nerr == nil && string(now.PowerState) == want {
				return nil
			}
		}
		return c.wrap("reset system "+sys.ID+" ("+resetType+")", err)
	}
	return nil
}

// resetTarget is the power state a reset leaves the system in, "" for the
// ones that restart it or leave it alone.
func resetTarget(resetType string) string {
	switch schemas.ResetType(resetType) {
	case schemas.OnResetType, schemas.ForceOnResetType:
		return string(schemas.OnPowerState)
	case schemas.ForceOffResetType, schemas.GracefulShutdownResetType:
		return string(schemas.OffPowerState)
	}
	return ""
}

// VerifyImage downloads url and compares its digest with want (a lower-case
// hex digest of algorithm md5, sha1, sha256 or sha512).
func VerifyImage(ctx context.Context, client *http.Client, url, algorithm, want string) error {
	var h hash.Hash
	switch algorithm {
	case "md5":
		h = md5.New() //nolint:gosec // see import
	case "sha1":
		h = sha1.New() //nolint:gosec // see import
	case "sha256":
		h = sha256.New()
	case "sha512":
		h = sha512.New()
	default:
		return fmt.Errorf("unknown checksum algorithm %q", algorithm)
	}
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Minute}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("image %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("downloading image %s to check its checksum: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("downloading image %s to check its checksum: HTTP %s", url, strconv.Itoa(resp.StatusCode))
	}
	n, err := io.Copy(h, resp.Body)
	if err != nil {
		return fmt.Errorf("downloading image %s to check its checksum: %w", url, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("image %s (%d bytes) has %s %s, not %s as the checksum says", url, n, algorithm, got, want)
	}
	return nil
}
