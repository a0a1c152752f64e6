package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// poolData is what every process sees: pools and address records, with
// CreateAddress atomic per (pool, address), as internal/ironic's store
// over deploy templates makes it.
type poolData struct {
	mu    sync.Mutex
	pools map[string]IPPoolSpec
	recs  []IPAddressRecord
	ids   int
	ops   []string // every call, "<view>:<op>", in order
}

func newPoolData(specs ...IPPoolSpec) *poolData {
	d := &poolData{pools: map[string]IPPoolSpec{}}
	for _, s := range specs {
		d.pools[s.Name] = s
	}
	return d
}

// add records an address directly (another workspace's claim).
func (d *poolData) add(pool, addr, owner string) IPAddressRecord {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.addLocked(pool, addr, owner)
}

func (d *poolData) addLocked(pool, addr, owner string) IPAddressRecord {
	d.ids++
	r := IPAddressRecord{ID: fmt.Sprintf("addr-%d", d.ids), Pool: pool, Address: addr, Owner: owner}
	d.recs = append(d.recs, r)
	return r
}

// holders lists the records as "address=owner", by address.
func (d *poolData) holders() string {
	d.mu.Lock()
	recs := slices.Clone(d.recs)
	d.mu.Unlock()
	sortRecords(recs)
	out := ""
	for i, r := range recs {
		if i > 0 {
			out += ","
		}
		out += r.Address + "=" + r.Owner
	}
	return out
}

// poolView is one process's IPPoolStore over d. Every call first goes
// through hook with its number in this view (from 1) and its name: the
// seam where a test runs another claimer, changes the records, or fails
// the call (a killed process). A view has its own pointer, so claims
// through two views do not share the in-process pool lock, as claims from
// two workspaces do not.
type poolView struct {
	d    *poolData
	name string
	n    int
	hook func(n int, op string) error
	// createExists, when set, makes every CreateAddress fail as taken
	// without recording anything (a claim that took it and let it go).
	createExists bool
}

var errKilled = errors.New("process killed")

// do runs fn on the records, under their lock, once the hook let op go.
func (v *poolView) do(op string, fn func(d *poolData) error) error {
	v.d.mu.Lock()
	v.n++
	n := v.n
	v.d.ops = append(v.d.ops, v.name+":"+op)
	v.d.mu.Unlock()
	if v.hook != nil {
		if err := v.hook(n, op); err != nil {
			return err
		}
	}
	v.d.mu.Lock()
	defer v.d.mu.Unlock()
	return fn(v.d)
}

func (v *poolView) CreatePool(_ context.Context, spec IPPoolSpec) error {
	return v.do("CreatePool", func(d *poolData) error {
		if _, ok := d.pools[spec.Name]; ok {
			return fmt.Errorf("pool %s: %w", spec.Name, ErrIPRecordExists)
		}
		d.pools[spec.Name] = spec
		return nil
	})
}

func (v *poolView) Pool(_ context.Context, name string) (s IPPoolSpec, ok bool, err error) {
	err = v.do("Pool", func(d *poolData) error { s, ok = d.pools[name]; return nil })
	return s, ok, err
}

func (v *poolView) UpdatePool(_ context.Context, spec IPPoolSpec) error {
	return v.do("UpdatePool", func(d *poolData) error { d.pools[spec.Name] = spec; return nil })
}

func (v *poolView) DeletePool(_ context.Context, name string) error {
	return v.do("DeletePool", func(d *poolData) error { delete(d.pools, name); return nil })
}

func (v *poolView) Addresses(_ context.Context, pool string) (out []IPAddressRecord, err error) {
	err = v.do("Addresses", func(d *poolData) error {
		for _, r := range d.recs {
			if r.Pool == pool {
				out = append(out, r)
			}
		}
		return nil
	})
	return out, err
}

func (v *poolView) Address(_ context.Context, id string) (rec IPAddressRecord, ok bool, err error) {
	err = v.do("Address", func(d *poolData) error {
		i := slices.IndexFunc(d.recs, func(r IPAddressRecord) bool { return r.ID == id })
		if ok = i >= 0; ok {
			rec = d.recs[i]
		}
		return nil
	})
	return rec, ok, err
}

func (v *poolView) CreateAddress(_ context.Context, rec IPAddressRecord) (out IPAddressRecord, err error) {
	err = v.do("CreateAddress", func(d *poolData) error {
		if v.createExists || slices.ContainsFunc(d.recs, func(r IPAddressRecord) bool { return r.Pool == rec.Pool && r.Address == rec.Address }) {
			return fmt.Errorf("address %s: %w", rec.Address, ErrIPRecordExists)
		}
		out = d.addLocked(rec.Pool, rec.Address, rec.Owner)
		return nil
	})
	return out, err
}

func (v *poolView) DeleteAddress(_ context.Context, id string) error {
	return v.do("DeleteAddress", func(d *poolData) error {
		d.recs = slices.DeleteFunc(d.recs, func(r IPAddressRecord) bool { return r.ID == id })
		return nil
	})
}
