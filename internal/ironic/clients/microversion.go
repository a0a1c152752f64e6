package clients

import (
	"fmt"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/utils"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// This file is Ironic's API microversions: the range this provider works
// with, Conn's checks of lifecycle's features, and
// the choice of a connection's microversion within the server's range.

// API microversions.
const (
	// MinMicroversion is the oldest Ironic API this provider works with:
	// 1.56 accepts the config drive as JSON (user, meta and network data).
	MinMicroversion = "1.56"
)

// ClientMaxMicroversion is the newest Ironic API this provider knows: that
// of the newest feature in lifecycle's feature table. A newer server is
// spoken to at this one, as BMO's ChooseMicroversion does.
var ClientMaxMicroversion = lifecycle.NewestMicroversion()

// Has tells whether the connection's microversion offers f.
func (c *Conn) Has(f lifecycle.Feature) bool {
	return c != nil && f.In(c.Microversion)
}

// Features is what the connection offers, for lifecycle's checks.
func (c *Conn) Features() lifecycle.APIFeatures {
	if c == nil {
		return lifecycle.APIFeatures{}
	}
	return lifecycle.APIFeatures{Microversion: c.Microversion, ServerMax: c.MaxMicroversion}
}

// WithMicroversion returns a copy of the service client that sends the
// given microversion (same transport, auth and endpoint).
func (c *Conn) WithMicroversion(v string) *gophercloud.ServiceClient {
	sc := *c.Client
	sc.Microversion = v
	return &sc
}

// CompareMicroversions compares two "X.Y" microversions like strings.Compare.
// A malformed version compares lower than any valid one.
func CompareMicroversions(a, b string) int {
	am, an, aerr := utils.ParseMicroversion(a)
	bm, bn, berr := utils.ParseMicroversion(b)
	switch {
	case aerr != nil && berr != nil:
		return 0
	case aerr != nil:
		return -1
	case berr != nil:
		return 1
	}
	if am != bm {
		if am < bm {
			return -1
		}
		return 1
	}
	switch {
	case an < bn:
		return -1
	case an > bn:
		return 1
	}
	return 0
}

// NegotiateMicroversion picks the microversion to use given the server's
// range: the pinned one if the server supports it, else the highest both
// this client (ClientMaxMicroversion) and the server support. Either must
// be at least MinMicroversion.
func NegotiateMicroversion(serverMin, serverMax, pinned string) (string, error) {
	if _, _, err := utils.ParseMicroversion(serverMax); err != nil {
		//nolint:staticcheck // ST1005: starts with a proper noun
		return "", fmt.Errorf("Ironic reported an invalid maximum API microversion %q", serverMax)
	}
	if serverMin == "" {
		serverMin = "1.1"
	}
	if pinned != "" {
		if _, _, err := utils.ParseMicroversion(pinned); err != nil {
			return "", fmt.Errorf("invalid microversion %q: want the form 1.NN", pinned)
		}
		if CompareMicroversions(pinned, MinMicroversion) < 0 {
			return "", fmt.Errorf("microversion %s is older than %s, the oldest this provider supports (config drive as JSON)", pinned, MinMicroversion)
		}
		if CompareMicroversions(pinned, serverMin) < 0 || CompareMicroversions(pinned, serverMax) > 0 {
			return "", fmt.Errorf("the pinned microversion %s is not supported by this Ironic, which supports %s to %s", pinned, serverMin, serverMax)
		}
		return pinned, nil
	}
	chosen := serverMax
	if CompareMicroversions(chosen, ClientMaxMicroversion) > 0 {
		chosen = ClientMaxMicroversion
	}
	if CompareMicroversions(chosen, MinMicroversion) < 0 {
		return "", fmt.Errorf("this Ironic supports API microversions up to %s, but this provider needs at least %s (config drive as JSON); upgrade Ironic", serverMax, MinMicroversion)
	}
	if CompareMicroversions(chosen, serverMin) < 0 {
		return "", fmt.Errorf("this Ironic requires API microversion %s or later, newer than %s, the newest this provider knows", serverMin, ClientMaxMicroversion)
	}
	return chosen, nil
}
