package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"sync"
)

// IPPoolStore keeps pools and their allocated addresses where every
// workspace sees them. internal/ironic implements it over Ironic deploy
// templates. Its one guarantee the allocator builds on: CreateAddress is
// atomic per (pool, address): of two creates of the same address, one
// fails with ErrIPRecordExists.
type IPPoolStore interface {
	// CreatePool records a new pool; ErrIPRecordExists (wrapped) when a
	// pool of that name exists.
	CreatePool(ctx context.Context, spec IPPoolSpec) error
	// Pool reads a pool's definition; ok is false when there is none.
	Pool(ctx context.Context, name string) (spec IPPoolSpec, ok bool, err error)
	// UpdatePool replaces a pool's definition.
	UpdatePool(ctx context.Context, spec IPPoolSpec) error
	// DeletePool removes a pool's definition (a missing one counts as
	// removed). It does not look at addresses.
	DeletePool(ctx context.Context, name string) error
	// Addresses lists the addresses allocated from a pool.
	Addresses(ctx context.Context, pool string) ([]IPAddressRecord, error)
	// Address reads one allocated address by id; ok is false when there
	// is none.
	Address(ctx context.Context, id string) (rec IPAddressRecord, ok bool, err error)
	// CreateAddress records rec (its ID is set by the store);
	// ErrIPRecordExists (wrapped) when rec.Address of rec.Pool is
	// recorded already, by anyone.
	CreateAddress(ctx context.Context, rec IPAddressRecord) (IPAddressRecord, error)
	// DeleteAddress removes an allocated address (missing: removed).
	DeleteAddress(ctx context.Context, id string) error
}

// ErrIPRecordExists says that a pool or address is recorded already.
var ErrIPRecordExists = errors.New("already recorded")

// ErrPoolNotFound says that a pool does not exist in the store.
var ErrPoolNotFound = errors.New("no such IP pool")

// PoolExhaustedError is a claim on a pool with no address left: the pool,
// its size and who holds its addresses.
type PoolExhaustedError struct {
	Pool  string
	Size  string
	Owner string
	// Holders are the allocations, by address.
	Holders []IPAddressRecord
	// Reserved are the owners whose pre-allocations are not claimed yet.
	Reserved []string
}

// maxHoldersShown bounds the holders an exhaustion error lists.
const maxHoldersShown = 50

func (e *PoolExhaustedError) Error() string {
	parts := make([]string, 0, len(e.Holders))
	for i, h := range e.Holders {
		if i == maxHoldersShown {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.Holders)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", h.Address, h.Owner))
	}
	msg := fmt.Sprintf("IP pool %s is exhausted: no address left for owner %q; its ranges hold %s addresses, "+
		"and %d are held by: %s", e.Pool, e.Owner, e.Size, len(e.Holders), strings.Join(parts, ", "))
	if len(e.Reserved) > 0 {
		msg += fmt.Sprintf("; pre_allocations reserve the others for: %s", strings.Join(e.Reserved, ", "))
	}
	return msg
}

// maxClaimRounds bounds how often ClaimIP lists the pool again after
// losing every address it tried to concurrent claims.
const maxClaimRounds = 50

// ClaimIP holds one address of pool for owner and returns it with the
// pool's network settings. It is idempotent by owner: when owner holds an
// address of the pool already (an earlier, interrupted claim), that one is
// returned and nothing is created.
//
// Otherwise it takes the lowest free address (owner's pre-allocation when
// the pool has one): it creates the record of that address, which the
// store makes atomic; when another claim recorded the same address first,
// the create fails, the address counts as taken, and the next one is
// tried. So concurrent claims, also from other workspaces, never share an
// address. After creating, it lists the owner's addresses once more: when
// two claims for the same owner raced, every one of them keeps the lowest
// address and removes the others, so an owner never holds two.
func ClaimIP(ctx context.Context, store IPPoolStore, log Logger, pool, owner string) (IPClaim, error) {
	if owner == "" {
		return IPClaim{}, fmt.Errorf("claim from pool %s: the owner key is empty", pool)
	}
	// Claims of one pool in this process take turns: they would only race
	// each other for the same lowest address. Claims of other processes
	// (workspaces) race through the store's atomic create.
	unlock, err := lockPool(ctx, store, pool)
	if err != nil {
		return IPClaim{}, fmt.Errorf("claim from pool %s for %q: waiting for this process's other claims: %w", pool, owner, err)
	}
	defer unlock()
	spec, p, err := loadPool(ctx, store, pool)
	if err != nil {
		return IPClaim{}, err
	}
rounds:
	for round := 0; round < maxClaimRounds; round++ {
		recs, err := store.Addresses(ctx, pool)
		if err != nil {
			return IPClaim{}, fmt.Errorf("claim from pool %s for %q: listing its addresses: %w", pool, owner, err)
		}
		if mine := ownedBy(recs, owner); len(mine) > 0 {
			log.Log(ctx, "owner holds an address of the pool already", map[string]any{"pool": pool, "owner": owner, "address": mine[0].Address})
			return settle(ctx, store, log, spec, owner, mine)
		}
		taken := map[netip.Addr]bool{}
		for _, r := range recs {
			if a, ok := parseIP(r.Address); ok {
				taken[a] = true
			}
		}
		conflicts := 0
		for {
			a, ok := p.Next(taken, owner)
			if !ok {
				break
			}
			rec, err := store.CreateAddress(ctx, IPAddressRecord{Pool: pool, Address: a.String(), Owner: owner})
			if errors.Is(err, ErrIPRecordExists) {
				log.Log(ctx, "address taken by a concurrent claim; trying the next", map[string]any{"pool": pool, "owner": owner, "address": a.String()})
				taken[a] = true
				conflicts++
				continue
			}
			if err != nil {
				return IPClaim{}, fmt.Errorf("claim from pool %s for %q: recording address %s: %w", pool, owner, a, err)
			}
			log.Log(ctx, "claimed address", map[string]any{"pool": pool, "owner": owner, "address": rec.Address})
			recs, err := store.Addresses(ctx, pool)
			if err != nil {
				return IPClaim{}, fmt.Errorf("claim from pool %s for %q: listing its addresses: %w", pool, owner, err)
			}
			mine := ownedBy(recs, owner)
			if len(mine) == 0 {
				// Another claim for the same owner removed ours in
				// favour of a lower one that is gone again: list again.
				continue rounds
			}
			return settle(ctx, store, log, spec, owner, mine)
		}
		if conflicts == 0 {
			if pre, ok := p.PreAllocation(owner); ok {
				holder := ""
				for _, r := range recs {
					if a, ok := parseIP(r.Address); ok && a == pre {
						holder = r.Owner
					}
				}
				return IPClaim{}, fmt.Errorf("claim from pool %s for %q: its pre-allocated address %s is held by %q", pool, owner, pre, holder)
			}
			sortRecords(recs)
			return IPClaim{}, &PoolExhaustedError{Pool: pool, Size: p.Size().String(), Owner: owner, Holders: recs,
				Reserved: p.unclaimedReservations(taken)}
		}
		// Every address left was lost to concurrent claims: list again,
		// some may have been released meanwhile.
	}
	return IPClaim{}, fmt.Errorf("claim from pool %s for %q: gave up after %d rounds of losing every free address to concurrent claims", pool, owner, maxClaimRounds)
}

// poolLocks holds one lock per store and pool (a 1-buffered channel, so
// that waiting honours the context).
var poolLocks sync.Map

func lockPool(ctx context.Context, store IPPoolStore, pool string) (func(), error) {
	v, _ := poolLocks.LoadOrStore(fmt.Sprintf("%p/%s", store, pool), make(chan struct{}, 1))
	ch := v.(chan struct{}) //nolint:forcetypeassert // only channels are stored
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// loadPool reads and compiles a pool; ErrPoolNotFound when it is missing.
func loadPool(ctx context.Context, store IPPoolStore, pool string) (IPPoolSpec, *IPPool, error) {
	spec, ok, err := store.Pool(ctx, pool)
	if err != nil {
		return spec, nil, fmt.Errorf("reading IP pool %s: %w", pool, err)
	}
	if !ok {
		return spec, nil, fmt.Errorf("IP pool %s: %w (create it with baremetal_ip_pool, in this or another workspace)", pool, ErrPoolNotFound)
	}
	p, err := CompilePool(spec)
	if err != nil {
		return spec, nil, fmt.Errorf("IP pool %s as recorded is not valid: %w", pool, err)
	}
	return spec, p, nil
}

// settle keeps the lowest of owner's addresses and removes the others
// (left by claims for the same owner that raced).
func settle(ctx context.Context, store IPPoolStore, log Logger, spec IPPoolSpec, owner string, mine []IPAddressRecord) (IPClaim, error) {
	sortRecords(mine)
	for _, extra := range mine[1:] {
		log.Log(ctx, "releasing a second address of the same owner", map[string]any{"pool": spec.Name, "owner": owner, "address": extra.Address, "kept": mine[0].Address})
		if err := store.DeleteAddress(ctx, extra.ID); err != nil {
			return IPClaim{}, fmt.Errorf("pool %s: owner %q holds %s and %s; releasing %s: %w", spec.Name, owner, mine[0].Address, extra.Address, extra.Address, err)
		}
	}
	return claimOf(mine[0], spec), nil
}

func ownedBy(recs []IPAddressRecord, owner string) []IPAddressRecord {
	var out []IPAddressRecord
	for _, r := range recs {
		if r.Owner == owner {
			out = append(out, r)
		}
	}
	return out
}

// sortRecords orders records by address (numerically), then id.
func sortRecords(recs []IPAddressRecord) {
	sort.SliceStable(recs, func(i, j int) bool {
		a, okA := parseIP(recs[i].Address)
		b, okB := parseIP(recs[j].Address)
		if okA && okB && a != b {
			return a.Less(b)
		}
		if recs[i].Address != recs[j].Address {
			return recs[i].Address < recs[j].Address
		}
		return recs[i].ID < recs[j].ID
	})
}

// ReleaseIP removes a claim's address (a missing one counts as released).
func ReleaseIP(ctx context.Context, store IPPoolStore, id string) error {
	return store.DeleteAddress(ctx, id)
}

// RefreshIPClaim reads a claim by its record id with its pool's current
// network settings. ok is false when the record is gone or no longer
// belongs to pool and owner (removed or replaced out of band).
func RefreshIPClaim(ctx context.Context, store IPPoolStore, id, pool, owner string) (IPClaim, bool, error) {
	rec, ok, err := store.Address(ctx, id)
	if err != nil || !ok {
		return IPClaim{}, false, err
	}
	if rec.Pool != pool || rec.Owner != owner {
		return IPClaim{}, false, nil
	}
	spec, ok, err := store.Pool(ctx, pool)
	if err != nil {
		return IPClaim{}, false, fmt.Errorf("reading IP pool %s: %w", pool, err)
	}
	if !ok {
		// The pool's definition is gone but the address is still held:
		// keep the claim, without network settings to refresh.
		return IPClaim{ID: rec.ID, Pool: rec.Pool, Owner: rec.Owner, Address: rec.Address}, true, nil
	}
	return claimOf(rec, spec), true, nil
}

// FindIPClaim returns owner's address of pool (ok false when it holds
// none), for import and for network data that take an address from a
// pool.
func FindIPClaim(ctx context.Context, store IPPoolStore, pool, owner string) (IPClaim, bool, error) {
	spec, ok, err := store.Pool(ctx, pool)
	if err != nil {
		return IPClaim{}, false, fmt.Errorf("reading IP pool %s: %w", pool, err)
	}
	if !ok {
		return IPClaim{}, false, fmt.Errorf("IP pool %s: %w", pool, ErrPoolNotFound)
	}
	recs, err := store.Addresses(ctx, pool)
	if err != nil {
		return IPClaim{}, false, fmt.Errorf("listing the addresses of IP pool %s: %w", pool, err)
	}
	mine := ownedBy(recs, owner)
	if len(mine) == 0 {
		return IPClaim{}, false, nil
	}
	sortRecords(mine)
	return claimOf(mine[0], spec), true, nil
}

// StrandedAddress is an allocation a new pool definition would not hold.
type StrandedAddress struct {
	IPAddressRecord
	Reason string
}

// Stranded returns the allocations of recs that spec would strand: an
// address outside its ranges (or excluded, or the gateway) that is not its
// owner's pre-allocation, or pre-allocated to another owner.
func Stranded(spec IPPoolSpec, recs []IPAddressRecord) ([]StrandedAddress, error) {
	p, err := CompilePool(spec)
	if err != nil {
		return nil, err
	}
	var out []StrandedAddress
	sortRecords(recs)
	for _, r := range recs {
		a, ok := parseIP(r.Address)
		if !ok {
			continue
		}
		if p.Holds(a, r.Owner) {
			continue
		}
		reason := "is no longer in the pool's ranges"
		switch {
		case p.reserved[a] != "":
			reason = fmt.Sprintf("would be pre-allocated to %q", p.reserved[a])
		case p.gateway == a:
			reason = "would be the gateway"
		case a.Is4() != p.Network.Addr().Is4() || !p.Network.Contains(a):
			reason = fmt.Sprintf("is outside the network %s", p.Network)
		}
		out = append(out, StrandedAddress{IPAddressRecord: r, Reason: reason})
	}
	return out, nil
}

// PoolSettings reads a pool's definition for network data (gateway, DNS
// servers, prefix); ErrPoolNotFound (wrapped) when it is missing.
func PoolSettings(ctx context.Context, store IPPoolStore, pool string) (IPPoolSpec, error) {
	spec, ok, err := store.Pool(ctx, pool)
	if err != nil {
		return spec, fmt.Errorf("reading IP pool %s: %w", pool, err)
	}
	if !ok {
		return spec, fmt.Errorf("IP pool %s: %w", pool, ErrPoolNotFound)
	}
	return spec, nil
}

// PoolAddress is owner's address of pool for network data, as Metal3's
// ipAddressFromIPPool renders it: the address owner's claim holds, else
// owner's pre-allocation (reserved for it, nobody else gets it). Without
// either it is an error that says how to claim one.
func PoolAddress(ctx context.Context, store IPPoolStore, pool, owner string) (IPClaim, error) {
	c, ok, err := FindIPClaim(ctx, store, pool, owner)
	if err != nil || ok {
		return c, err
	}
	spec, err := PoolSettings(ctx, store, pool)
	if err != nil {
		return IPClaim{}, err
	}
	if a, ok := spec.PreAllocations[owner]; ok {
		return claimOf(IPAddressRecord{Pool: pool, Owner: owner, Address: a}, spec), nil
	}
	return IPClaim{}, fmt.Errorf("owner %q holds no address of IP pool %s: claim one with a baremetal_ip_claim "+
		"{ pool = %q, owner = %q } and make this data source depend on it (depends_on), so that it is read after the claim", owner, pool, pool, owner)
}
