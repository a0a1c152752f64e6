package actions

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
)

// Every action's schema is valid and describes itself and every attribute
// (the docs are generated from them).
func TestSchemasDescribeEveryAttribute(t *testing.T) {
	ctx := context.Background()
	names := map[string]bool{}
	for _, f := range All() {
		a := f()
		var md action.MetadataResponse
		a.Metadata(ctx, action.MetadataRequest{ProviderTypeName: "baremetal"}, &md)
		if names[md.TypeName] {
			t.Errorf("two actions are named %s", md.TypeName)
		}
		names[md.TypeName] = true
		var resp action.SchemaResponse
		a.Schema(ctx, action.SchemaRequest{}, &resp)
		if resp.Diagnostics.HasError() {
			t.Fatalf("%s: %v", md.TypeName, resp.Diagnostics)
		}
		if d := resp.Schema.ValidateImplementation(ctx); d.HasError() {
			t.Errorf("%s: %v", md.TypeName, d)
		}
		if resp.Schema.Description == "" {
			t.Errorf("%s has no description", md.TypeName)
		}
		var walk func(prefix string, attrs map[string]schema.Attribute)
		walk = func(prefix string, attrs map[string]schema.Attribute) {
			for name, attr := range attrs {
				if attr.GetDescription() == "" {
					t.Errorf("%s: attribute %s%s has no description", md.TypeName, prefix, name)
				}
				switch n := attr.(type) {
				case schema.SingleNestedAttribute:
					walk(prefix+name+".", n.Attributes)
				case schema.ListNestedAttribute:
					walk(prefix+name+".", n.NestedObject.Attributes)
				}
			}
		}
		walk("", resp.Schema.Attributes)
	}
	for _, want := range []string{"baremetal_host_reboot", "baremetal_host_power", "baremetal_host_boot_once",
		"baremetal_bmc_reset", "baremetal_host_steps", "baremetal_host_inspect"} {
		if !names[want] {
			t.Errorf("no action %s", want)
		}
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{20 * time.Minute: "20m", time.Hour: "1h", 90 * time.Minute: "1h30m", 45 * time.Second: "45s"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
