package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/actions"
)

// Actions are the provider actions (Terraform 1.14 and later); Configure
// hands them the clients as ActionData.
func (p *baremetalProvider) Actions(context.Context) []func() action.Action {
	return actions.All()
}

var _ provider.ProviderWithActions = (*baremetalProvider)(nil)
