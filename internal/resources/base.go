package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// base is what every resource embeds: the provider's clients, handed down
// once by Configure, and the one way to reach them.
type base struct {
	clients *lifecycle.Clients
}

// Configure keeps the provider's clients (nil while the provider is not
// configured yet, as during validation).
func (b *base) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	b.clients = tfglue.ClientsFrom(req.ProviderData, &resp.Diagnostics)
}

// machine is the state machine; only called once the provider is
// configured (CRUD and import).
func (b *base) machine() *lifecycle.Machine { return b.clients.Machine }

// hasFirmware reports whether the provider is configured with a firmware
// catalog (plan-time checks skip without one).
func (b *base) hasFirmware() bool { return b.clients != nil && b.clients.Firmware != nil }
