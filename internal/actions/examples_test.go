package actions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/provider"
)

// stubs are the resources the action examples refer to.
const stubs = `
resource "baremetal_host" "web1" {
  name        = "web1"
  driver      = "fake-hardware"
  driver_info = {}
}

resource "baremetal_host" "web3" {
  name        = "web3"
  driver      = "fake-hardware"
  driver_info = {}
  traits      = ["CUSTOM_FIRMWARE_BASELINE"]
}

resource "baremetal_runbook" "firmware_baseline" {
  name  = "CUSTOM_FIRMWARE_BASELINE"
  steps = [{ interface = "bios", step = "factory_reset" }]
}

resource "baremetal_deployment" "web2" {
  host_id = baremetal_host.web1.id
  image = {
    url      = "http://images.example/os.qcow2"
    checksum = "0123456789abcdef0123456789abcdef"
  }
}
`

// validateDir runs terraform validate (Terraform 1.14) on files against
// the provider served in this process; it skips without a Terraform 1.14.
func validateDir(t *testing.T, files map[string]string) []tfjson.Diagnostic {
	t.Helper()
	tf := os.Getenv("BAREMETAL_TF114_PATH")
	if tf == "" {
		t.Skip("needs Terraform 1.14+: set BAREMETAL_TF114_PATH (make test sets it)")
	}
	t.Setenv("TF_ACC_TERRAFORM_PATH", tf)
	clearEnv(t)
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ps, err := providerserver.NewProtocol6WithError(provider.New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	return acctest.NewCLI(t, dir, acctest.Serve(t, ps)).Validate(t)
}

// The action examples (docs/actions) are valid configurations for
// Terraform 1.14 and this provider.
func TestActionExamplesValidate(t *testing.T) {
	files := map[string]string{"stubs.tf": stubs}
	examples, err := filepath.Glob("../../examples/actions/*/action*.tf")
	if err != nil || len(examples) < 6 {
		t.Fatalf("examples %v: %v", examples, err)
	}
	for _, f := range examples {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(filepath.Dir(f))+".tf"] = string(raw)
	}
	for _, d := range validateDir(t, files) {
		t.Errorf("%s: %s: %s", d.Severity, d.Summary, d.Detail)
	}
}

// terraform validate refuses bad action configurations, naming the
// attribute, before any provider is configured.
func TestActionConfigValidateCLI(t *testing.T) {
	bad := stubs + `
action "baremetal_host_reboot" "a" {
  config {
    host_id = baremetal_host.web1.id
    mode    = "gentle"
  }
}

action "baremetal_host_power" "b" {
  config {
    host_id = "web1"
    power   = "reset"
  }
}

action "baremetal_host_steps" "c" {
  config {
    host_id = "web1"
    steps   = [{ interface = "deploy", step = "erase_devices", args = "[1]" }]
  }
}

action "baremetal_host_boot_once" "d" {
  config {
    host_id = "web1"
  }
}
`
	var all []string
	for _, d := range validateDir(t, map[string]string{"main.tf": bad}) {
		all = append(all, d.Summary+": "+d.Detail)
	}
	got := strings.Join(all, "\n")
	t.Logf("terraform validate:\n%s", got)
	for _, want := range []string{
		`value must be one of: ["soft" "hard"], got: "gentle"`,
		`value must be one of: ["on" "off" "cycle"], got: "reset"`,
		`"[1]" is not a JSON object`,
		`The argument "device" is required`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("terraform validate said nothing like %q", want)
		}
	}
}
