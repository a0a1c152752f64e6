package resources

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

func TestReadPlacement(t *testing.T) {
	for _, tc := range []struct {
		state, stateShard    *string
		obsGroup, obsShard   string
		wantGroup, wantShard string // "<null>" for null
	}{
		{nil, nil, "", "", "<null>", "<null>"},
		{nil, nil, "other", "s", "other", "s"},
		{ptr("Rack1"), ptr("s"), "rack1", "s", "Rack1", "s"},
		{ptr("rack1"), ptr("s"), "rack2", "", "rack2", ""},
	} {
		m := hostModel{ConductorGroup: nullable(tc.state), Shard: nullable(tc.stateShard)}
		m.readPlacement(lifecycle.Observation{ConductorGroup: tc.obsGroup, Shard: tc.obsShard})
		if got := shown(m.ConductorGroup.IsNull(), m.ConductorGroup.ValueString()); got != tc.wantGroup {
			t.Errorf("%+v: conductor_group %s, want %s", tc, got, tc.wantGroup)
		}
		if got := shown(m.Shard.IsNull(), m.Shard.ValueString()); got != tc.wantShard {
			t.Errorf("%+v: shard %s, want %s", tc, got, tc.wantShard)
		}
	}
}

func ptr(s string) *string { return &s }

func nullable(s *string) types.String {
	if s == nil {
		return types.StringNull()
	}
	return types.StringValue(*s)
}

func shown(null bool, v string) string {
	if null {
		return "<null>"
	}
	return v
}
