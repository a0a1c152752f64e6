package ironic

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/drivers"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

var _ lifecycle.HardwareTypes = (*Catalog)(nil)

// hardwareTypes is the list of enabled hardware types, read once.
type hardwareTypes struct {
	mu   sync.Mutex
	list []string
}

// EnabledHardwareTypes lists the hardware types Ironic enables (GET
// /v1/drivers?type=dynamic), sorted: read once per Catalog (a provider
// run); a failed read is tried again by the next caller.
func (c *Catalog) EnabledHardwareTypes(ctx context.Context) ([]string, error) {
	c.hw.mu.Lock()
	defer c.hw.mu.Unlock()
	if c.hw.list != nil {
		return c.hw.list, nil
	}
	pages, err := drivers.ListDrivers(c.sc, drivers.ListDriversOpts{Type: "dynamic"}).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing Ironic's hardware types: %s", ironicError(err))
	}
	list, err := drivers.ExtractDrivers(pages)
	if err != nil {
		return nil, fmt.Errorf("listing Ironic's hardware types: %w", err)
	}
	names := make([]string, 0, len(list))
	for _, d := range list {
		names = append(names, d.Name)
	}
	sort.Strings(names)
	c.hw.list = names
	return names, nil
}
