// Command terraform-provider-baremetal is a Terraform provider that takes
// bare-metal hosts from a BMC address to a running OS through OpenStack
// Ironic, following the Metal3 Bare Metal Operator's host state machine.
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	_ "net/http/pprof" // served only when BAREMETAL_PPROF_ADDR is set
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/provider"
)

//go:generate scripts/docs.sh

// version is set by goreleaser.
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	// Profiling for benchmarks (scripts/bench.sh): pprof on a loopback
	// address. Never on by default.
	if addr := os.Getenv("BAREMETAL_PPROF_ADDR"); addr != "" {
		go func() { _ = http.ListenAndServe(addr, nil) }()
	}

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address:         "registry.terraform.io/baremetal-tf/baremetal",
		Debug:           debug,
		ProtocolVersion: 6,
	})
	if err != nil {
		log.Fatal(err)
	}
}
