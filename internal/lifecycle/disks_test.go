package lifecycle_test

import (
	"context"
	"slices"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle/lifecycletest"
)

const gib = int64(1) << 30

// withLocalGB is a host whose properties say local_gb (the root disk).
func withLocalGB(name string, gb int64) lifecycle.HostSummary {
	h := summary(name, "gold", nil)
	h.Hardware.Storage = []lifecycle.Disk{{Name: "local", SizeBytes: gb * gib}}
	return h
}

// min_disk_gigabytes compares with the largest inspected disk when there
// is an inventory, else with local_gb; inventories are read only for the
// hosts that a disk minimum decides.
func TestUseInventoryDisks(t *testing.T) {
	inv := map[string][]lifecycle.Disk{
		// Root disk 100 GiB (local_gb), a 2 TiB data disk.
		"uuid-big-data": {{Name: "/dev/sda", SizeBytes: 100 * gib}, {Name: "/dev/sdb", SizeBytes: 2048 * gib}},
		// local_gb says 900 but the inventory's disks are all small.
		"uuid-small": {{Name: "/dev/sda", SizeBytes: 200 * gib}},
		// Never inspected by properties, but has an inventory.
		"uuid-noprops": {{Name: "/dev/nvme0n1", SizeBytes: 1000 * gib}},
	}
	noProps := summary("noprops", "gold", nil)
	noProps.Hardware = nil
	hosts := []lifecycle.HostSummary{
		withLocalGB("big-data", 100),
		withLocalGB("small", 900),
		withLocalGB("no-inventory", 600),
		noProps,
		withLocalGB("other-class", 5000),
	}
	hosts[4].ResourceClass = "silver"

	for _, tc := range []struct {
		name      string
		sel       lifecycle.Selector
		want      []string
		wantReads []string
	}{
		{"no disk minimum: nothing read, local_gb irrelevant", lifecycle.Selector{ResourceClass: "gold"},
			[]string{"big-data", "small", "no-inventory", "noprops"}, nil},
		{"500 GiB: the data disk counts, local_gb only without inventory", lifecycle.Selector{ResourceClass: "gold", MinDiskGigabytes: 500},
			[]string{"big-data", "no-inventory", "noprops"}, []string{"uuid-big-data", "uuid-small", "uuid-no-inventory", "uuid-noprops"}},
		{"1500 GiB", lifecycle.Selector{ResourceClass: "gold", MinDiskGigabytes: 1500},
			[]string{"big-data"}, []string{"uuid-big-data", "uuid-small", "uuid-no-inventory", "uuid-noprops"}},
		{"other filters first: no read for rejected hosts", lifecycle.Selector{ResourceClass: "silver", MinDiskGigabytes: 10},
			[]string{"other-class"}, []string{"uuid-other-class"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat := lifecycletest.NewCatalog(hosts...)
			cat.Disks = inv
			got, _ := cat.Hosts(context.Background())
			if err := lifecycle.UseInventoryDisks(context.Background(), cat, got, tc.sel); err != nil {
				t.Fatal(err)
			}
			ordered, _ := lifecycle.SelectHosts(got, tc.sel, "")
			var names []string
			for _, h := range ordered {
				names = append(names, h.Name)
			}
			slices.Sort(names)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(names, want) {
				t.Errorf("selected %v, want %v", names, want)
			}
			if !slices.Equal(cat.DiskReads, tc.wantReads) {
				t.Errorf("inventory reads %v, want %v", cat.DiskReads, tc.wantReads)
			}
		})
	}
}
