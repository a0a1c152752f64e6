package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// This file is the short maintenance the provider holds on a node while it
// works on the machine behind Ironic's back (a firmware update or a data
// image through the BMC), so that Ironic's power sync does not fight it:
// set with a reason of the caller's own, and ended only if it is still
// the caller's.

// Maintainer reads and sets a node's maintenance (FirmwareUpdater has it).
type Maintainer interface {
	Maintenance(ctx context.Context, id string) (on bool, reason string, err error)
	SetMaintenance(ctx context.Context, id string, on bool, reason string) error
}

// WithOwnMaintenance runs fn with the node in maintenance (reason, which
// starts with prefix): a node already in maintenance for another reason
// stays so and is not this run's to clear; one left by an earlier run of
// ours (its reason starts with prefix) is ours to end. The maintenance is
// cleared afterwards, also after a failure or a cancelled ctx, unless
// someone else took it over meanwhile (a detach, an operator). An error
// clearing it says the node is still in maintenance.
func WithOwnMaintenance(ctx context.Context, m Maintainer, log Logger, host, id, prefix, reason string, fn func() error) (err error) {
	logf := func(msg string, fields map[string]any) {
		fields["host"], fields["id"] = host, id
		logTo(ctx, log, msg, fields)
	}
	on, was, err := m.Maintenance(ctx, id)
	if err != nil {
		return fmt.Errorf("host %q (node %s): reading maintenance: %w", host, id, err)
	}
	if on {
		if !strings.HasPrefix(was, prefix) {
			logf("node already in maintenance for another reason: it stays in maintenance", map[string]any{"reason": was})
			return fn()
		}
		reason = was // a run of ours that did not finish: ours to end
	} else {
		if err := m.SetMaintenance(ctx, id, true, reason); err != nil {
			return fmt.Errorf("host %q (node %s): putting the node in maintenance: %w", host, id, err)
		}
		logf("node in maintenance while the provider works through the BMC", map[string]any{"reason": reason})
	}
	defer func() {
		// Cleared even when ctx is done: a host must not stay in
		// maintenance silently.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), maintenanceClearTimeout)
		defer cancel()
		if now, nowReason, rerr := m.Maintenance(cctx, id); rerr == nil && (!now || nowReason != reason) {
			if now {
				logf("node's maintenance changed hands meanwhile: left as it is", map[string]any{"reason": nowReason})
			}
			return
		}
		if cerr := m.SetMaintenance(cctx, id, false, ""); cerr != nil {
			err = errors.Join(err, fmt.Errorf("host %q (node %s) is STILL IN MAINTENANCE (reason %q): taking it out failed: %w; "+
				"clear it by hand (baremetal node maintenance unset %s)", host, id, reason, cerr, id))
			return
		}
		logf("node out of maintenance", map[string]any{})
	}()
	return fn()
}

// maintenanceClearTimeout bounds clearing maintenance afterwards.
const maintenanceClearTimeout = 2 * time.Minute
