package resources

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// Where Ironic places a host's node: its conductor group and its shard.

func shardAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		Description: "Ironic shard of the node (Ironic API 1.82 and later; an older Ironic refuses the host with a registration error): " +
			"a label that lets several Ironic clients split the nodes between them. Changes are made in place; a change made " +
			"behind Terraform's back shows in the plan.",
		Validators: []validator.String{validators.New("an Ironic shard", func(s string) error {
			if s == "" || len(s) > 255 || strings.ContainsAny(s, ", \t\r\n") {
				return fmt.Errorf("%q is not a shard Ironic accepts: 1 to 255 characters, no commas or whitespace", s)
			}
			return nil
		})},
	}
}

// readPlacement copies the node's conductor group and shard, so a plan
// shows changes made behind Terraform's back. Ironic keeps conductor
// groups in lower case: a configured value that differs only in case is
// kept. Unset attributes stay unset while Ironic has nothing either.
func (m *hostModel) readPlacement(obs lifecycle.Observation) {
	if !strings.EqualFold(m.ConductorGroup.ValueString(), obs.ConductorGroup) {
		m.ConductorGroup = types.StringValue(obs.ConductorGroup)
	}
	if m.Shard.ValueString() != obs.Shard {
		m.Shard = types.StringValue(obs.Shard)
	}
}
