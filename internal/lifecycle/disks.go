package lifecycle

import (
	"context"
	"fmt"
)

// DiskReader is the part of a Catalog that reads a node's disks from its
// inspection inventory; ok is false when the node has none (not inspected,
// or inspected by an interface that stores no inventory).
type DiskReader interface {
	InventoryDisks(ctx context.Context, id string) (disks []Disk, ok bool, err error)
}

// UseInventoryDisks makes a disk minimum compare with the host's largest
// inspected disk: for every host that the selector would take but for its
// disk minimum, the disks of its inspection inventory replace the
// properties' summary (Ironic's local_gb, the root disk, which can be
// smaller than the largest disk). Hosts without an inventory keep local_gb.
// It reads nothing when the selector has no disk minimum, and only the
// hosts still in the running otherwise (one inventory read each).
func UseInventoryDisks(ctx context.Context, cat Catalog, hosts []HostSummary, sel Selector) error {
	dr, ok := cat.(DiskReader)
	if !ok || sel.MinDiskGigabytes <= 0 {
		return nil
	}
	rest := sel
	rest.MinDiskGigabytes = 0
	for i := range hosts {
		h := &hosts[i]
		if reason := rest.Reject(*h); h.ID == "" || (reason != "" && reason != ReasonNoHardware) {
			continue
		}
		disks, ok, err := dr.InventoryDisks(ctx, h.ID)
		if err != nil {
			return fmt.Errorf("reading the inspected disks of host %s (%s): %w", h.Name, h.ID, err)
		}
		if !ok {
			continue
		}
		hw := HardwareDetails{}
		if h.Hardware != nil {
			hw = *h.Hardware
		}
		hw.Storage = disks
		h.Hardware = &hw
	}
	return nil
}
