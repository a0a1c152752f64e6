package bmc

import (
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/stmcginnis/gofish/schemas"
)

// This file decides which system a firmware inventory item belongs to on
// a BMC that may serve several. The system owns itself, its managers, its
// chassis, what its Storage links to (drives, enclosures), and every
// chassis contained, through Links.ContainedBy, by one it owns (an iLO's
// storage enclosure Chassis/DE00A000 in Chassis/1, a Dell's
// Chassis/Enclosure.Internal.0-1 in System.Embedded.1), with all that is
// at or under those URIs. An item is left out only when what it relates
// to is provably another system's; an item whose ties are unknown stays.

// ownership resolves the ties of resources for one system, reading what
// it needs once.
type ownership struct {
	c       *RedfishClient
	sys     *schemas.ComputerSystem
	owned   []string // paths the system owns, with what is under them
	storage bool     // owned includes what the system's Storage links to
	ties    map[string]tie
}

type tie int

const (
	tieUnknown tie = iota
	tieOurs
	tieOther
)

// redfishLinks are the links of a resource that say whom it belongs to.
type redfishLinks struct {
	Drives json.RawMessage // Storage: a list of links; Chassis: one link
	Links  struct {
		ManagedBy, Chassis, Enclosures, ComputerSystems, ManagerForServers []odataLink
		ContainedBy                                                        odataLink
	}
}

type odataLink struct {
	ID string `json:"@odata.id"`
}

// decodeLinks reads the links of a resource's JSON; a field of another
// shape than Redfish's is left empty, the others are read (false only for
// JSON that is not JSON).
func decodeLinks(raw []byte) (redfishLinks, bool) {
	var v redfishLinks
	err := json.Unmarshal(raw, &v)
	var typeErr *json.UnmarshalTypeError
	return v, err == nil || errors.As(err, &typeErr)
}

func paths(links []odataLink) []string {
	var out []string
	for _, l := range links {
		if l.ID != "" {
			out = append(out, linkPath(l.ID))
		}
	}
	return out
}

func newOwnership(c *RedfishClient, sys *schemas.ComputerSystem) *ownership {
	o := &ownership{c: c, sys: sys, owned: []string{linkPath(sys.ODataID)}, ties: map[string]tie{}}
	raw, _ := decodeLinks(sys.RawData)
	o.owned = append(o.owned, paths(raw.Links.ManagedBy)...)
	o.owned = append(o.owned, paths(raw.Links.Chassis)...)
	return o
}

// keep says whether an item relating to related belongs in the system's
// inventory: it does unless none of related is ours and one is provably
// another system's. The BMC is asked more only when the system's own links
// do not tell.
func (o *ownership) keep(related []string) bool {
	if len(related) == 0 || anyOwned(related, o.owned) {
		return true
	}
	other := false
	for _, r := range related {
		switch o.tieOf(r, 0) {
		case tieOurs:
			return true
		case tieOther:
			other = true
		}
	}
	return !other
}

// tieOf is whose resource uri is: ours when the system owns it or a
// chassis that contains it; another's when it is under another system, or
// under a chassis or manager that names only other systems (or, naming
// none, is contained by another's chassis).
func (o *ownership) tieOf(uri string, depth int) tie {
	o.readStorage()
	if anyOwned([]string{uri}, o.owned) {
		return tieOurs
	}
	top, kind := topResource(uri)
	switch {
	case top == "" || depth > 8:
		return tieUnknown
	case kind == "systems":
		return tieOther
	}
	key := linkPath(top)
	if t, ok := o.ties[key]; ok {
		return t
	}
	o.ties[key] = tieUnknown // a ContainedBy loop ends here
	t := o.tieOfResource(top, depth)
	o.ties[key] = t
	return t
}

// tieOfResource reads the chassis or manager at top: the systems it names
// decide, else the chassis that contains it.
func (o *ownership) tieOfResource(top string, depth int) tie {
	raw, ok := o.read(top)
	if !ok {
		return tieUnknown
	}
	servers := append(paths(raw.Links.ComputerSystems), paths(raw.Links.ManagerForServers)...)
	switch {
	case anyOwned(servers, o.owned[:1]):
		return tieOurs
	case len(servers) > 0:
		return tieOther
	case raw.Links.ContainedBy.ID != "":
		return o.tieOf(raw.Links.ContainedBy.ID, depth+1)
	}
	return tieUnknown
}

// topResource is the system, chassis or manager at or above uri, as the
// BMC spells it (some BMCs' URIs are case-sensitive), and its kind:
// "systems", "chassis" or "managers"; "" when uri is under none.
func topResource(uri string) (top, kind string) {
	u := trimLink(uri)
	for _, kind := range []string{"systems", "chassis", "managers"} {
		prefix := "/redfish/v1/" + kind + "/"
		if len(u) > len(prefix) && strings.EqualFold(u[:len(prefix)], prefix) {
			id, _, _ := strings.Cut(u[len(prefix):], "/")
			return u[:len(prefix)] + id, kind
		}
	}
	return "", ""
}

// readStorage adds what the system's Storage links to (drives,
// enclosures) to what it owns, once; a BMC without Storage adds nothing.
func (o *ownership) readStorage() {
	if o.storage {
		return
	}
	o.storage = true
	storages, err := o.sys.Storage()
	if err != nil {
		return
	}
	for _, st := range storages {
		raw, _ := decodeLinks(st.RawData)
		var drives []odataLink
		_ = json.Unmarshal(raw.Drives, &drives)
		o.owned = append(o.owned, paths(drives)...)
		o.owned = append(o.owned, paths(raw.Links.Enclosures)...)
	}
}

// read reads the links of the resource at uri; false when the BMC does not
// answer it.
func (o *ownership) read(uri string) (redfishLinks, bool) {
	resp, err := o.c.api.Get(uri)
	if err != nil {
		return redfishLinks{}, false
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return redfishLinks{}, false
	}
	return decodeLinks(body)
}
