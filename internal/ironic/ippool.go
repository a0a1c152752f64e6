package ironic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// IPPoolStore implements lifecycle.IPPoolStore in Ironic's deploy
// templates (API 1.55+), so that pools and their addresses live on the
// Ironic every workspace already talks to:
//
//   - A pool is the deploy template CUSTOM_IPPOOL_<NAME> (the pool name in
//     upper case, dashes as underscores); its extra holds the definition
//     under "baremetal_ip_pool".
//   - An allocated address is the deploy template named from the pool and
//     the address, CUSTOM_IP4_10_0_0_5_<NAME> or CUSTOM_IP6_<32 hex
//     digits>_<NAME>; its extra holds pool, address and owner under
//     "baremetal_ip_address".
//
// Ironic keeps deploy template names unique and answers 409 Conflict to a
// second create of the same name, atomically in its database: that is
// what keeps two claims, in any number of workspaces, from recording the
// same address. Both name forms map one to one onto (pool, address): pool
// names are lower-case DNS labels, so the upper-cased name loses nothing.
//
// A deploy template only acts on a deployment whose node (or instance)
// asks for the trait of the same name, which no node does; and its one
// step has priority 0, which Ironic never runs. The templates are records,
// never applied.
type IPPoolStore struct {
	sc *gophercloud.ServiceClient
	// pageLimit is the page size of the template list (0: Ironic's).
	pageLimit int
}

var _ lifecycle.IPPoolStore = (*IPPoolStore)(nil)

// NewIPPoolStore returns the store over sc (microversion 1.55 or later).
func NewIPPoolStore(sc *gophercloud.ServiceClient) *IPPoolStore { return &IPPoolStore{sc: sc} }

// WithTemplatePageLimit sets the page size of the deploy template list.
func (s *IPPoolStore) WithTemplatePageLimit(n int) *IPPoolStore { s.pageLimit = n; return s }

// Keys of the records in a template's extra.
const (
	extraPool    = "baremetal_ip_pool"
	extraAddress = "baremetal_ip_address"
	// recordStep is the one (disabled) step every record carries: Ironic
	// wants at least one.
	recordStep = "baremetal_ip_pool_record"
)

// PoolTemplateName is the deploy template that holds pool's definition.
func PoolTemplateName(pool string) string { return "CUSTOM_IPPOOL_" + traitPart(pool) }

// AddressTemplateName is the deploy template that holds addr of pool.
func AddressTemplateName(pool string, addr netip.Addr) string {
	if addr.Is4() {
		b := addr.As4()
		return fmt.Sprintf("CUSTOM_IP4_%d_%d_%d_%d_%s", b[0], b[1], b[2], b[3], traitPart(pool))
	}
	b := addr.As16()
	return fmt.Sprintf("CUSTOM_IP6_%X_%s", b[:], traitPart(pool))
}

func traitPart(pool string) string { return strings.ToUpper(strings.ReplaceAll(pool, "-", "_")) }

// Wire forms.

type poolRange struct {
	Start   string   `json:"start,omitempty"`
	End     string   `json:"end,omitempty"`
	Subnet  string   `json:"subnet,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

type poolRecord struct {
	Name           string            `json:"name"`
	Ranges         []poolRange       `json:"ranges"`
	Prefix         int               `json:"prefix"`
	Gateway        string            `json:"gateway,omitempty"`
	DNSServers     []string          `json:"dns_servers,omitempty"`
	PreAllocations map[string]string `json:"pre_allocations,omitempty"`
}

type addressRecord struct {
	Pool    string `json:"pool"`
	Address string `json:"address"`
	Owner   string `json:"owner"`
}

type templateExtra struct {
	Pool    *poolRecord    `json:"baremetal_ip_pool,omitempty"`
	Address *addressRecord `json:"baremetal_ip_address,omitempty"`
	// ManagedBy says who wrote the record, for people listing templates.
	ManagedBy string `json:"managed_by,omitempty"`
}

type deployTemplate struct {
	UUID  string           `json:"uuid,omitempty"`
	Name  string           `json:"name"`
	Extra json.RawMessage  `json:"extra,omitempty"`
	Steps []map[string]any `json:"steps,omitempty"`
}

func (t deployTemplate) extra() templateExtra {
	var e templateExtra
	if len(t.Extra) > 0 {
		_ = json.Unmarshal(t.Extra, &e) // another tool's template: no record
	}
	return e
}

func toPoolRecord(spec lifecycle.IPPoolSpec) *poolRecord {
	r := &poolRecord{Name: spec.Name, Prefix: spec.Prefix, Gateway: spec.Gateway,
		DNSServers: spec.DNSServers, PreAllocations: spec.PreAllocations}
	for _, x := range spec.Ranges {
		r.Ranges = append(r.Ranges, poolRange(x))
	}
	return r
}

func (r *poolRecord) spec() lifecycle.IPPoolSpec {
	s := lifecycle.IPPoolSpec{Name: r.Name, Prefix: r.Prefix, Gateway: r.Gateway,
		DNSServers: r.DNSServers, PreAllocations: r.PreAllocations}
	for _, x := range r.Ranges {
		s.Ranges = append(s.Ranges, lifecycle.IPRange(x))
	}
	return s
}

func (s *IPPoolStore) url(parts ...string) string {
	return s.sc.ServiceURL(append([]string{"deploy_templates"}, parts...)...)
}

// create posts a template; a 409 (the name exists) is ErrIPRecordExists.
func (s *IPPoolStore) create(ctx context.Context, name string, extra templateExtra) (deployTemplate, error) {
	raw, err := json.Marshal(extra)
	if err != nil {
		return deployTemplate{}, err
	}
	body := deployTemplate{Name: name, Extra: raw, Steps: []map[string]any{{
		"interface": "deploy", "step": recordStep, "args": map[string]any{}, "priority": 0,
	}}}
	var out deployTemplate
	_, err = s.sc.Post(ctx, s.url(), body, &out, &gophercloud.RequestOpts{OkCodes: []int{http.StatusCreated}})
	switch {
	case isConflict(err):
		return deployTemplate{}, fmt.Errorf("deploy template %s: %w", name, lifecycle.ErrIPRecordExists)
	case err != nil:
		return deployTemplate{}, apiError("create deploy template "+name, err)
	}
	return out, nil
}

// get reads a template by UUID or name; ok is false on 404.
func (s *IPPoolStore) get(ctx context.Context, ident string) (deployTemplate, bool, error) {
	var out deployTemplate
	_, err := s.sc.Get(ctx, s.url(ident), &out, nil)
	switch {
	case isNotFound(err):
		return deployTemplate{}, false, nil
	case err != nil:
		return deployTemplate{}, false, apiError("get deploy template "+ident, err)
	}
	return out, true, nil
}

func (s *IPPoolStore) delete(ctx context.Context, ident string) error {
	_, err := s.sc.Delete(ctx, s.url(ident), &gophercloud.RequestOpts{OkCodes: []int{http.StatusNoContent}})
	if err != nil && !isNotFound(err) {
		return apiError("delete deploy template "+ident, err)
	}
	return nil
}

// list reads every deploy template whose name starts with prefix (Ironic
// has no name filter: every page is read, following next links).
func (s *IPPoolStore) list(ctx context.Context, prefix string) ([]deployTemplate, error) {
	q := url.Values{"fields": {"uuid,name,extra"}}
	if s.pageLimit > 0 {
		q.Set("limit", fmt.Sprint(s.pageLimit))
	}
	next := s.url() + "?" + q.Encode()
	var all []deployTemplate
	for pages := 0; next != ""; pages++ {
		if pages > 10000 {
			return nil, errors.New("list deploy templates: more than 10000 pages")
		}
		var page struct {
			Templates []deployTemplate `json:"deploy_templates"`
			Next      string           `json:"next"`
		}
		if _, err := s.sc.Get(ctx, next, &page, nil); err != nil {
			return nil, apiError("list deploy templates", err)
		}
		for _, t := range page.Templates {
			if strings.HasPrefix(t.Name, prefix) {
				all = append(all, t)
			}
		}
		if len(page.Templates) == 0 {
			break
		}
		next = page.Next
	}
	return all, nil
}

// CreatePool records spec as the template PoolTemplateName(spec.Name).
func (s *IPPoolStore) CreatePool(ctx context.Context, spec lifecycle.IPPoolSpec) error {
	_, err := s.create(ctx, PoolTemplateName(spec.Name), templateExtra{Pool: toPoolRecord(spec), ManagedBy: managedBy})
	return err
}

const managedBy = "terraform-provider-baremetal"

// Pool reads a pool's definition.
func (s *IPPoolStore) Pool(ctx context.Context, name string) (lifecycle.IPPoolSpec, bool, error) {
	t, ok, err := s.get(ctx, PoolTemplateName(name))
	if err != nil || !ok {
		return lifecycle.IPPoolSpec{}, false, err
	}
	e := t.extra()
	if e.Pool == nil || e.Pool.Name != name {
		return lifecycle.IPPoolSpec{}, false, fmt.Errorf("deploy template %s holds no definition of IP pool %s in its extra "+
			"(made by another tool, or edited?)", t.Name, name)
	}
	return e.Pool.spec(), true, nil
}

// UpdatePool replaces the definition in the pool's template's extra.
func (s *IPPoolStore) UpdatePool(ctx context.Context, spec lifecycle.IPPoolSpec) error {
	name := PoolTemplateName(spec.Name)
	patch := []map[string]any{{"op": "add", "path": "/extra/" + extraPool, "value": toPoolRecord(spec)}}
	_, err := s.sc.Patch(ctx, s.url(name), patch, nil, &gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}})
	if err != nil {
		return apiError("update deploy template "+name, err)
	}
	return nil
}

// DeletePool removes the pool's template.
func (s *IPPoolStore) DeletePool(ctx context.Context, name string) error {
	return s.delete(ctx, PoolTemplateName(name))
}

// addressOf reads an address record from a template: only when its name
// is the one its pool and address make (the name is the lock).
func addressOf(t deployTemplate) (lifecycle.IPAddressRecord, bool) {
	a := t.extra().Address
	if a == nil {
		return lifecycle.IPAddressRecord{}, false
	}
	addr, err := netip.ParseAddr(a.Address)
	if err != nil || AddressTemplateName(a.Pool, addr) != t.Name {
		return lifecycle.IPAddressRecord{}, false
	}
	return lifecycle.IPAddressRecord{ID: t.UUID, Pool: a.Pool, Address: addr.String(), Owner: a.Owner}, true
}

// Addresses lists pool's allocated addresses.
func (s *IPPoolStore) Addresses(ctx context.Context, pool string) ([]lifecycle.IPAddressRecord, error) {
	ts, err := s.list(ctx, "CUSTOM_IP")
	if err != nil {
		return nil, err
	}
	var out []lifecycle.IPAddressRecord
	for _, t := range ts {
		if r, ok := addressOf(t); ok && r.Pool == pool {
			out = append(out, r)
		}
	}
	return out, nil
}

// Address reads one allocated address by template UUID.
func (s *IPPoolStore) Address(ctx context.Context, id string) (lifecycle.IPAddressRecord, bool, error) {
	if id == "" {
		return lifecycle.IPAddressRecord{}, false, nil
	}
	t, ok, err := s.get(ctx, id)
	if err != nil || !ok {
		return lifecycle.IPAddressRecord{}, false, err
	}
	r, ok := addressOf(t)
	return r, ok, nil
}

// CreateAddress records rec's address; ErrIPRecordExists when its
// template exists (another claim holds the address).
func (s *IPPoolStore) CreateAddress(ctx context.Context, rec lifecycle.IPAddressRecord) (lifecycle.IPAddressRecord, error) {
	addr, err := netip.ParseAddr(rec.Address)
	if err != nil {
		return rec, fmt.Errorf("address %q: %w", rec.Address, err)
	}
	t, err := s.create(ctx, AddressTemplateName(rec.Pool, addr), templateExtra{
		Address:   &addressRecord{Pool: rec.Pool, Address: addr.String(), Owner: rec.Owner},
		ManagedBy: managedBy,
	})
	if err != nil {
		return rec, err
	}
	rec.ID, rec.Address = t.UUID, addr.String()
	return rec, nil
}

// DeleteAddress removes an address's template.
func (s *IPPoolStore) DeleteAddress(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	return s.delete(ctx, id)
}
