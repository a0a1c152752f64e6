package lifecycle

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// FirmwareUpdate is one component update (BMO's FirmwareUpdate, plus an
// optional checksum of the image).
type FirmwareUpdate struct {
	// Component is Ironic's component name ("bios", "bmc", "nic:<id>"),
	// or "redfish:<FirmwareInventory Id>" for the BMC path.
	Component string
	// URL is where the image is (http, https; Ironic also takes file and
	// swift).
	URL string
	// Checksum is "<algorithm>:<hex>" or a bare hex digest (md5, sha1,
	// sha256 or sha512 by its length); "" for none. The image is checked
	// against it before anything is sent to Ironic or the BMC.
	Checksum string
}

// Ways a firmware update is done (FirmwareUpdateResult.Method).
const (
	FirmwareUpdateIronic  = "ironic"  // Ironic's firmware.update step (API 1.86+)
	FirmwareUpdateRedfish = "redfish" // the BMC's UpdateService.SimpleUpdate
)

// FirmwareUpdateResult is what one update did.
type FirmwareUpdateResult struct {
	Component string
	// Target is what was updated: the component (Ironic) or the BMC's
	// FirmwareInventory item Id.
	Target string
	// PreviousVersion and Version are the versions before and after.
	PreviousVersion string
	Version         string
	// Message is the BMC's last task message (Redfish path).
	Message string
}

// FirmwareTask is a BMC update task as last polled.
type FirmwareTask struct {
	Component string
	Target    string
	State     string // Redfish TaskState: Running, Completed, Exception, ...
	Percent   int    // -1 when the BMC does not say
	Message   string
}

var (
	componentRE = regexp.MustCompile(`^(bios|bmc|nic:[A-Za-z0-9][A-Za-z0-9._:-]*|redfish:[A-Za-z0-9][A-Za-z0-9._:-]*)$`)
	hexRE       = regexp.MustCompile(`^[0-9a-fA-F]+$`)
	digestSizes = map[string]int{"md5": 32, "sha1": 40, "sha256": 64, "sha512": 128}
)

// ValidateFirmwareComponent checks a component name: "bios", "bmc",
// "nic:<id>" (Ironic's names, which the BMC path maps to its inventory) or
// "redfish:<FirmwareInventory Id>" (BMC path only).
func ValidateFirmwareComponent(c string) error {
	if !componentRE.MatchString(c) {
		return fmt.Errorf("component %q is not one of \"bios\", \"bmc\", \"nic:<id>\" (Ironic's names) or "+
			"\"redfish:<FirmwareInventory Id>\" (a BMC inventory item)", c)
	}
	return nil
}

// ValidateFirmwareURL checks an image URL: http or https (what a BMC
// fetches and Ironic serves; Ironic also takes file:// and swift://).
func ValidateFirmwareURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("url %q is not a URL: %v", raw, err)
	}
	switch u.Scheme {
	case "http", "https":
		if u.Host == "" {
			return fmt.Errorf("url %q has no host", raw)
		}
	case "file", "swift":
		// Ironic's firmware.update reads these; a BMC cannot.
	default:
		return fmt.Errorf("url %q: scheme %q is not one of http, https (or file, swift for Ironic's firmware.update)", raw, u.Scheme)
	}
	return nil
}

// ParseChecksum splits a checksum into its algorithm and lower-case hex
// digest: "<algorithm>:<hex>" (md5, sha1, sha256, sha512) or a bare hex
// digest whose length names the algorithm.
func ParseChecksum(c string) (algorithm, digest string, err error) {
	algo, hex, found := strings.Cut(c, ":")
	if !found {
		algo, hex = "", c
	}
	algo = strings.ToLower(algo)
	if !hexRE.MatchString(hex) {
		return "", "", fmt.Errorf("checksum %q: the digest is not hexadecimal", c)
	}
	if algo == "" {
		for a, n := range digestSizes {
			if len(hex) == n {
				algo = a
			}
		}
		if algo == "" {
			return "", "", fmt.Errorf("checksum %q: %d hex digits match no algorithm (md5 32, sha1 40, sha256 64, sha512 128); "+
				"or write \"sha256:<hex>\"", c, len(hex))
		}
	}
	n, ok := digestSizes[algo]
	switch {
	case !ok:
		return "", "", fmt.Errorf("checksum %q: algorithm %q is not one of md5, sha1, sha256, sha512", c, algo)
	case len(hex) != n:
		return "", "", fmt.Errorf("checksum %q: a %s digest has %d hex digits, not %d", c, algo, n, len(hex))
	}
	return algo, strings.ToLower(hex), nil
}

// ValidateFirmwareUpdates checks every update and that no component is
// updated twice; errors name the update's index.
func ValidateFirmwareUpdates(updates []FirmwareUpdate) []error {
	var errs []error
	seen := map[string]int{}
	for i, u := range updates {
		bad := func(err error) { errs = append(errs, fmt.Errorf("updates[%d]: %w", i, err)) }
		if err := ValidateFirmwareComponent(u.Component); err != nil {
			bad(err)
		}
		if err := ValidateFirmwareURL(u.URL); err != nil {
			bad(err)
		}
		if u.Checksum != "" {
			if _, _, err := ParseChecksum(u.Checksum); err != nil {
				bad(err)
			}
		}
		if j, dup := seen[u.Component]; dup {
			bad(fmt.Errorf("component %q is already updated by updates[%d]", u.Component, j))
		}
		seen[u.Component] = i
	}
	return errs
}

// FirmwareUpdater is what the BMC path of a firmware update needs from
// Ironic and the BMC. internal/ironic implements it.
type FirmwareUpdater interface {
	// Maintenance reads a node's maintenance flag and reason.
	Maintenance(ctx context.Context, id string) (on bool, reason string, err error)
	// SetMaintenance sets (with reason) or clears a node's maintenance.
	SetMaintenance(ctx context.Context, id string, on bool, reason string) error
	// VerifyImage downloads the image and compares it with the checksum.
	VerifyImage(ctx context.Context, u FirmwareUpdate) error
	// BMCUpdate installs one update through the node's BMC (Redfish
	// UpdateService.SimpleUpdate) and polls its task to the end, calling
	// progress after every poll. A task that ends in failure is an error
	// carrying the BMC's message.
	BMCUpdate(ctx context.Context, id string, access BMCAccess, u FirmwareUpdate, progress func(FirmwareTask)) (FirmwareUpdateResult, error)
}

// MaintenanceReasonPrefix starts the maintenance reason the BMC path sets,
// so that a later run knows the maintenance is its own.
const MaintenanceReasonPrefix = "terraform-provider-baremetal: firmware update"

// UpdateFirmwareThroughBMC runs updates one after the other through the
// host's BMC with the Ironic node in maintenance for the duration
// (WithOwnMaintenance), so that Ironic's power state sync does not fight
// the BMC's reboots; maintenance is cleared afterwards, also after a
// failure, unless it was someone else's. If maintenance cannot be cleared,
// the error says so. Results are those of
// the updates that finished, in order.
func UpdateFirmwareThroughBMC(ctx context.Context, fu FirmwareUpdater, log Logger, host, id string, access BMCAccess,
	updates []FirmwareUpdate) (results []FirmwareUpdateResult, err error) {
	logf := func(msg string, fields map[string]any) {
		if log != nil {
			fields["host"], fields["id"] = host, id
			log.Log(ctx, msg, fields)
		}
	}
	for _, u := range updates {
		if u.Checksum == "" {
			continue
		}
		if err := fu.VerifyImage(ctx, u); err != nil {
			return nil, fmt.Errorf("host %q (node %s): component %s: %w", host, id, u.Component, err)
		}
	}
	comps := make([]string, len(updates))
	for i, u := range updates {
		comps[i] = u.Component
	}
	reason := fmt.Sprintf("%s of %s through the BMC's Redfish UpdateService", MaintenanceReasonPrefix, strings.Join(comps, ", "))
	err = WithOwnMaintenance(ctx, fu, log, host, id, MaintenanceReasonPrefix, reason, func() error {
		for _, u := range updates {
			logf("updating firmware through the BMC", map[string]any{"component": u.Component, "url": u.URL})
			res, uerr := fu.BMCUpdate(ctx, id, access, u, func(t FirmwareTask) {
				logf("firmware update progress", map[string]any{
					"component": u.Component, "target": t.Target, "task_state": t.State, "percent": t.Percent, "message": t.Message,
				})
			})
			if uerr != nil {
				return fmt.Errorf("host %q (node %s): firmware update of component %s from %s failed: %w", host, id, u.Component, u.URL, uerr)
			}
			logf("firmware updated", map[string]any{"component": u.Component, "target": res.Target,
				"previous_version": res.PreviousVersion, "version": res.Version})
			results = append(results, res)
		}
		return nil
	})
	return results, err
}
