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
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/gcheadroom"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/provider"
)

//go:generate scripts/docs.sh

// The garbage collector's target when the user sets neither GOGC nor
// GOMEMLIMIT: the live heap plus gcHeadroom, or plus gcMinPercent of it when
// that is more (see main).
const (
	gcHeadroom   = 32 << 20
	gcMinPercent = 50
)

// version is set by goreleaser.
var version = "dev"

func main() {
	var debugMode bool
	flag.BoolVar(&debugMode, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	if !debugMode {
		quietUnreadLogs()
	}
	// With hundreds of hosts in flight the live heap is mostly Terraform's
	// RPCs (30-70 MB at 500): collecting at 1.5x the live heap rather than
	// 2x keeps that peak lower. A plan's live heap is a few MB, and at
	// GOGC=50 its many short RPCs were collected every few MB allocated
	// (a third of a 200-host plan's CPU): 32 MB of headroom spares that.
	// 16 MB cost less memory at 20 and 100 hosts but gave the 500-host
	// refresh, whose live heap is tens of MB, no gain (16.6 s, against
	// 11.0 s with 32 MB and 14.5-17.6 s at GOGC=50).
	// Go's own GOGC and GOMEMLIMIT, when set, win.
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		gcheadroom.Start(gcHeadroom, gcMinPercent)
	}

	// Profiling for benchmarks (scripts/bench.sh): pprof on a loopback
	// address. Never on by default.
	if addr := os.Getenv("BAREMETAL_PPROF_ADDR"); addr != "" {
		go func() { _ = http.ListenAndServe(addr, nil) }()
	}

	// BAREMETAL_PROFILE_DIR (scripts/bench.sh): a CPU profile of the whole
	// process, and a heap profile (with every allocation since the start)
	// when Terraform stops it, written to cpu-PID.pb.gz and heap-PID.pb.gz.
	stop := func() {}
	if dir := os.Getenv("BAREMETAL_PROFILE_DIR"); dir != "" {
		stop = profile(dir)
	}

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address:         "registry.terraform.io/baremetal-tf/baremetal",
		Debug:           debugMode,
		ProtocolVersion: 6,
	})
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// profile starts a CPU profile written into dir, and returns what stops it
// and writes the heap profile.
func profile(dir string) func() {
	name := func(kind string) string {
		return filepath.Join(dir, kind+"-"+strconv.Itoa(os.Getpid())+".pb.gz")
	}
	cpu, err := os.Create(name("cpu"))
	if err != nil {
		log.Printf("profile: %v", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		log.Printf("profile: %v", err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = cpu.Close()
		if heap, err := os.Create(name("heap")); err == nil {
			_ = pprof.Lookup("heap").WriteTo(heap, 0)
			_ = heap.Close()
		}
	}
}

// logSwitches are the variables that make Terraform show a provider's logs
// (TF_LOG, TF_LOG_PROVIDER) or set the levels of its loggers (the rest).
var logSwitches = []string{
	"TF_LOG", "TF_LOG_PROVIDER", "TF_LOG_PROVIDER_BAREMETAL",
	"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK",
}

// quietUnreadLogs turns the provider's loggers off when none of
// logSwitches is set. Unset, terraform-plugin-go and -framework log every
// RPC at trace level to stderr, and Terraform parses each line only to
// drop it: with hundreds of hosts that is a fifth of the provider's CPU in
// a plan, and as much again in Terraform. Any switch set leaves every
// level as the user asked (TF_LOG=debug shows the provider's debug lines).
func quietUnreadLogs() {
	for _, k := range logSwitches {
		if strings.TrimSpace(os.Getenv(k)) != "" {
			return
		}
	}
	for _, k := range logSwitches[1:] {
		_ = os.Setenv(k, "off")
	}
}
