package clients

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// This file tests the choice of the microversion and Conn's checks of it.

func TestMicroversionNegotiate(t *testing.T) {
	cases := []struct {
		min, max, pinned string
		want             string
		errHas           []string
	}{
		{"1.1", "1.82", "", "1.82", nil},
		{"1.1", "1.110", "", ClientMaxMicroversion, nil},
		{"1.1", "1.96", "", "1.96", nil}, // Ironic 2025.1: its maximum
		{"1.1", "1.95", "", "1.95", nil},
		{"1.1", "1.56", "", "1.56", nil},
		{"1.1", "1.82", "1.60", "1.60", nil},
		{"1.1", "1.82", "1.99", "", []string{"1.99", "1.82", "not supported"}},
		{"1.1", "1.82", "1.50", "", []string{"1.50", MinMicroversion}},
		{"1.1", "1.40", "", "", []string{"1.40", MinMicroversion}},
		{"1.1", "1.82", "abc", "", []string{"abc"}},
		{"1.1", "", "", "", []string{"invalid"}},
	}
	for _, tc := range cases {
		got, err := NegotiateMicroversion(tc.min, tc.max, tc.pinned)
		if tc.errHas == nil {
			if err != nil || got != tc.want {
				t.Errorf("Negotiate(%s,%s,%q) = %q, %v; want %q", tc.min, tc.max, tc.pinned, got, err, tc.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("Negotiate(%s,%s,%q) = %q, want an error", tc.min, tc.max, tc.pinned, got)
			continue
		}
		for _, s := range tc.errHas {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("Negotiate(%s,%s,%q) error %q lacks %q", tc.min, tc.max, tc.pinned, err, s)
			}
		}
	}
	if CompareMicroversions("1.9", "1.10") >= 0 || CompareMicroversions("1.82", "1.82") != 0 || CompareMicroversions("2.0", "1.99") <= 0 {
		t.Fatal("CompareMicroversions compares strings, not numbers")
	}
}

func TestMicroversionConnect(t *testing.T) {
	f := &ctIronic{max: "1.82"}
	srv := httptest.NewServer(f)
	defer srv.Close()

	conn, err := Connect(context.Background(), ctConfig(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	if conn.Microversion != "1.82" || conn.MaxMicroversion != "1.82" || conn.ServerMinMicroversion != "1.1" {
		t.Fatalf("conn = %+v", conn)
	}
	if !conn.Has(lifecycle.FeatureInventory) || conn.Has(lifecycle.FeatureFirmware) || conn.Has(lifecycle.FeatureDisablePowerOff) {
		t.Fatal("Has disagrees with 1.82")
	}
	if err := conn.Features().Require(lifecycle.FeatureFirmware, "firmware"); err == nil || !strings.Contains(err.Error(), "1.86") {
		t.Fatalf("Require firmware: %v", err)
	}
	if _, err := conn.Client.Get(context.Background(), conn.Client.ServiceURL("nodes"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if mv := f.lastNodesMV.Load(); mv != "1.82" {
		t.Fatalf("requests carry microversion %v, want 1.82", mv)
	}
	if c := conn.WithMicroversion("1.60"); c.Microversion != "1.60" || conn.Client.Microversion != "1.82" {
		t.Fatal("WithMicroversion changed the shared client")
	}

	pinned := ctConfig(srv.URL)
	pinned.Microversion = "1.60"
	if conn, err := Connect(context.Background(), pinned); err != nil || conn.Microversion != "1.60" || conn.Has(lifecycle.FeatureNetworkData) {
		t.Fatalf("pinned 1.60: %+v, %v", conn, err)
	}
	pinned.Microversion = "1.99"
	if _, err := Connect(context.Background(), pinned); err == nil || !strings.Contains(err.Error(), "1.99") || !strings.Contains(err.Error(), "1.82") {
		t.Fatalf("pinned 1.99: %v", err)
	}

	old := httptest.NewServer(&ctIronic{max: "1.40"})
	defer old.Close()
	_, err = Connect(context.Background(), ctConfig(old.URL))
	if err == nil || !strings.Contains(err.Error(), "1.40") || !strings.Contains(err.Error(), MinMicroversion) {
		t.Fatalf("server max 1.40: %v", err)
	}
}
