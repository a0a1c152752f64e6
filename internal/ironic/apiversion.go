package ironic

// apiversion.go reads the Ironic API's maximum microversion (the server's,
// which may be newer than the one this provider negotiates), for the
// features that depend on the Ironic release rather than on a request's
// microversion, such as oci:// images.

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

var _ lifecycle.APIVersions = (*Catalog)(nil)

// ServerMaxMicroversion GETs the v1 root and reads Ironic's
// X-OpenStack-Ironic-API-Maximum-Version (else the body's version).
func (c *Catalog) ServerMaxMicroversion(ctx context.Context) (string, error) {
	var body struct {
		Version struct {
			Version string `json:"version"`
		} `json:"version"`
	}
	resp, err := c.sc.Get(ctx, c.sc.ServiceURL(), &body, &gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}})
	if err != nil {
		return "", err
	}
	if v := resp.Header.Get("X-OpenStack-Ironic-API-Maximum-Version"); v != "" {
		return v, nil
	}
	if body.Version.Version != "" {
		return body.Version.Version, nil
	}
	return "", fmt.Errorf("GET %s named no maximum API version", c.sc.ServiceURL())
}
