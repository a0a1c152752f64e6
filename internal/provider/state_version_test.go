package provider

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// Before the first release every resource declares schema Version 0, and a
// state of each resource as 0.1.0 writes it is kept in
// testdata/state/<type>.v0.json. This test decodes those states through
// the provider's UpgradeResourceState, as Terraform does with the state of
// a user who upgrades the provider: a schema change that breaks them (an
// attribute whose type changed, a block that became an attribute) fails
// here, and must come with a Version bump and an upgrader
// (ResourceWithUpgradeState) tested from these same files. An attribute
// that disappears is reported too: the framework silently drops it from an
// old state, so its value would be lost without an upgrader that moves it.
//
// There is no upgrader yet because no released state needs one: 0.1.0 is
// the first release. go test -run TestStateV0StillDecodes -update-state
// rewrites the files, which is only right before 0.1.0 is tagged.
var updateState = flag.Bool("update-state", false, "rewrite testdata/state/*.v0.json from the current schemas")

func TestStateV0StillDecodes(t *testing.T) {
	ctx := context.Background()
	p := New("test")()
	srv, err := providerserver.NewProtocol6WithError(p)()
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range resourceSchemas(ctx, p) {
		name, sr := rs.name, rs.resp
		t.Run(name, func(t *testing.T) {
			if sr.Schema.Version != 0 {
				t.Fatalf("schema Version %d: add testdata/state/%s.v%d.json and an upgrader test, then update this test",
					sr.Schema.Version, name, sr.Schema.Version)
			}
			file := filepath.Join("testdata", "state", name+".v0.json")
			if *updateState {
				b, err := json.MarshalIndent(sample(sr.Schema.Attributes), "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("no v0 state for %s: %v (a new resource: run with -update-state once)", name, err)
			}
			resp, err := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
				TypeName: name, Version: 0, RawState: &tfprotov6.RawState{JSON: raw},
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range resp.Diagnostics {
				if d.Severity == tfprotov6.DiagnosticSeverityError {
					t.Errorf("a 0.1.0 state no longer decodes: %s: %s", d.Summary, d.Detail)
				}
			}
			if resp.UpgradedState == nil {
				t.Fatal("no upgraded state")
			}
			var old map[string]any
			if err := json.Unmarshal(raw, &old); err != nil {
				t.Fatal(err)
			}
			var gone []string
			for name := range old {
				if _, ok := sr.Schema.Attributes[name]; !ok {
					gone = append(gone, name)
				}
			}
			sort.Strings(gone)
			if len(gone) > 0 {
				t.Errorf("attributes of the 0.1.0 state are gone from the schema (their values would be dropped): %v", gone)
			}
		})
	}
}

// sample is a state of the schema's shape with a value in every
// attribute (nested ones included), as JSON state holds them.
func sample(attrs map[string]schema.Attribute) map[string]any {
	out := map[string]any{}
	for name, a := range attrs {
		out[name] = sampleValue(a)
	}
	return out
}

func sampleValue(a schema.Attribute) any {
	switch a := a.(type) {
	case schema.StringAttribute:
		return "x"
	case schema.BoolAttribute:
		return true
	case schema.Int64Attribute:
		return 1
	case schema.Float64Attribute, schema.NumberAttribute:
		return 1.5
	case schema.MapAttribute:
		return map[string]any{"k": "v"}
	case schema.ListAttribute, schema.SetAttribute:
		return []any{"v"}
	case schema.SingleNestedAttribute:
		return sample(a.Attributes)
	case schema.ListNestedAttribute:
		return []any{sample(a.NestedObject.Attributes)}
	case schema.SetNestedAttribute:
		return []any{sample(a.NestedObject.Attributes)}
	case schema.MapNestedAttribute:
		return map[string]any{"k": sample(a.NestedObject.Attributes)}
	}
	return nil
}
