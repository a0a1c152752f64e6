package ironic

import (
	"context"
	"testing"
)

// InventoryDisks reads the inventory's disks; a node without an inventory
// is ok=false (the caller keeps local_gb), not an error.
func TestFakeInventoryDisks(t *testing.T) {
	c, srv := catalogOnFake(t)
	a := srv.AddNode(nodesNode("a", "available", ""))
	b := srv.AddNode(nodesNode("b", "available", ""))
	srv.SetInventory(a, map[string]any{"inventory": map[string]any{
		"disks": []any{
			map[string]any{"name": "/dev/sda", "size": 107374182400},
			map[string]any{"name": "/dev/sdb", "size": 2199023255552},
		},
	}})
	disks, ok, err := c.InventoryDisks(context.Background(), a)
	if err != nil || !ok || len(disks) != 2 || disks[1].Name != "/dev/sdb" || disks[1].SizeBytes != 2199023255552 {
		t.Fatalf("%+v, %v, %v", disks, ok, err)
	}
	if disks, ok, err := c.InventoryDisks(context.Background(), b); err != nil || ok || len(disks) != 0 {
		t.Fatalf("no inventory: %+v, %v, %v", disks, ok, err)
	}
}
