package acctest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// ProviderAddress is the provider's address in test configurations (no
// required_providers block: Terraform's default namespace).
const ProviderAddress = "registry.terraform.io/hashicorp/baremetal"

// TerraformPath returns the Terraform CLI for tests that run it directly:
// TF_ACC_TERRAFORM_PATH, else terraform on PATH. It skips the test, saying
// so, when there is none; it never downloads one.
func TerraformPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	p, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("needs a Terraform CLI: set TF_ACC_TERRAFORM_PATH or put terraform on PATH (make test does)")
	}
	return p
}

// Serve serves srv in this process for Terraform to reattach to, until the
// test ends, and returns the TF_REATTACH_PROVIDERS value that points at it.
func Serve(t *testing.T, srv tfprotov6.ProviderServer) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cfgCh := make(chan *plugin.ReattachConfig, 1)
	closeCh := make(chan struct{})
	errCh := make(chan error, 1)
	go func() {
		errCh <- tf6server.Serve(ProviderAddress, func() tfprotov6.ProviderServer { return srv },
			tf6server.WithDebug(ctx, cfgCh, closeCh), tf6server.WithoutLogStderrOverride(),
			tf6server.WithGoPluginLogger(hclog.NewNullLogger()), tf6server.WithLoggingSink(t))
	}()
	var rc *plugin.ReattachConfig
	select {
	case rc = <-cfgCh:
	case err := <-errCh:
		cancel()
		t.Fatalf("serving the provider: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		<-closeCh
	})
	type addr struct{ Network, String string }
	b, err := json.Marshal(map[string]any{ProviderAddress: map[string]any{
		"Protocol": string(rc.Protocol), "ProtocolVersion": rc.ProtocolVersion, "Pid": rc.Pid, "Test": rc.Test,
		"Addr": addr{Network: rc.Addr.Network(), String: rc.Addr.String()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// CLI runs the Terraform CLI in one directory against a provider served by
// Serve, with an empty CLI configuration (this machine's TF_CLI_CONFIG_FILE
// may name a missing file).
type CLI struct {
	Dir string
	Env []string
	tf  string
}

// NewCLI returns a CLI for dir that reattaches to the provider at reattach
// (Serve's value), with env added, and runs terraform init there.
func NewCLI(t *testing.T, dir, reattach string, env ...string) *CLI {
	t.Helper()
	rc := filepath.Join(t.TempDir(), "terraformrc")
	if err := os.WriteFile(rc, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := &CLI{Dir: dir, tf: TerraformPath(t), Env: append([]string{
		"TF_CLI_CONFIG_FILE=" + rc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
		"TF_REATTACH_PROVIDERS=" + reattach,
	}, env...)}
	if out, err := c.Run("init", "-input=false", "-no-color"); err != nil {
		t.Fatalf("terraform init: %v\n%s", err, out)
	}
	return c
}

// UseTerraform makes c run the Terraform CLI at tf from now on (a newer
// one than TerraformPath's, for terraform query).
func (c *CLI) UseTerraform(tf string) { c.tf = tf }

// Run runs terraform with args and returns its combined output.
func (c *CLI) Run(args ...string) (string, error) {
	cmd := exec.Command(c.tf, args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// MustRun runs terraform with args (and -no-color) and fails the test
// when it fails, with its output.
func (c *CLI) MustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, err := c.Run(append(args, "-no-color")...)
	if err != nil {
		t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// EmptyPlan runs terraform plan -detailed-exitcode and fails the test
// unless it plans nothing; when says when, in the failure. It returns the
// plan's last line.
func (c *CLI) EmptyPlan(t *testing.T, when string) string {
	t.Helper()
	out, err := c.Run("plan", "-detailed-exitcode", "-no-color")
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 2 {
			t.Fatalf("the plan %s is not empty:\n%s", when, out)
		}
		t.Fatalf("terraform plan: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// Validate runs terraform validate -json and returns its diagnostics.
func (c *CLI) Validate(t *testing.T) []tfjson.Diagnostic {
	t.Helper()
	cmd := exec.Command(c.tf, "validate", "-json", "-no-color")
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	out, err := cmd.Output() // exits 1 when the configuration is invalid
	var v tfjson.ValidateOutput
	if jerr := json.Unmarshal(out, &v); jerr != nil {
		t.Fatalf("terraform validate -json: %v (%v)\n%s", jerr, err, out)
	}
	return v.Diagnostics
}
