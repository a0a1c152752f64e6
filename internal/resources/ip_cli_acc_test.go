package resources_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// The Terraform CLI as users run it, one process per apply, for what the
// in-process harness cannot show: applies in two working directories at
// the same time, Terraform killed mid-apply, and for_each addresses (which
// terraform-plugin-testing's state shim refuses). As internal/faults does:
// the provider is built once into a directory a dev_overrides CLI
// configuration points at, and each Terraform runs in its own process
// group so that a SIGKILL reaches it and its provider.

var (
	cliOnce sync.Once
	cliRC   string // the CLI configuration with dev_overrides
	cliErr  error
)

// cliProvider builds the provider (once per test binary) and returns the
// CLI configuration that makes Terraform run it. It skips the test as the
// other acceptance tests do when the rig is not there.
func cliProvider(t *testing.T) string {
	t.Helper()
	acctest.PreCheck(t)
	cliOnce.Do(func() {
		// Under the clone's .tools (ignored by git), rebuilt by every test
		// binary: nothing left behind in /tmp.
		root, _ := filepath.Abs(filepath.Join("..", ".."))
		dir := filepath.Join(root, ".tools", "ipcli-provider")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			cliErr = err
			return
		}
		cliRC, cliErr = acctest.BuildProvider(dir)
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliRC
}

// cliWorkspace is a Terraform working directory.
type cliWorkspace struct {
	t        *testing.T
	dir      string
	env      []string
	endpoint string
}

func newCLIWorkspace(t *testing.T, endpoint, config string) *cliWorkspace {
	t.Helper()
	rc := cliProvider(t)
	w := &cliWorkspace{t: t, dir: t.TempDir(), endpoint: endpoint}
	w.env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
		"TF_LOG_PROVIDER=INFO", "TF_LOG_PATH="+filepath.Join(w.dir, "terraform.log"))
	w.write(config)
	return w
}

// write replaces the configuration.
func (w *cliWorkspace) write(config string) {
	w.t.Helper()
	config = `terraform {
  required_providers {
    baremetal = { source = "baremetal-tf/baremetal" }
  }
}
provider "baremetal" {
  endpoint = "` + w.endpoint + `"
}
` + config
	if err := os.WriteFile(filepath.Join(w.dir, "main.tf"), []byte(config), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func (w *cliWorkspace) command(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), append([]string{"-chdir=" + w.dir}, args...)...)
	cmd.Env = w.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

func (w *cliWorkspace) run(args ...string) (string, error) {
	out, err := w.command(args...).CombinedOutput()
	return string(out), err
}

func (w *cliWorkspace) mustRun(what string, args ...string) string {
	w.t.Helper()
	out, err := w.run(args...)
	if err != nil {
		w.t.Fatalf("%s: terraform %s: %v\n%s", what, args[0], err, tailLines(out, 60))
	}
	return out
}

var applyArgs = []string{"apply", "-auto-approve", "-input=false", "-no-color"}

func (w *cliWorkspace) apply(what string) { w.t.Helper(); w.mustRun(what, applyArgs...) }

func (w *cliWorkspace) destroy() {
	w.t.Helper()
	w.mustRun("destroy", "destroy", "-auto-approve", "-input=false", "-no-color")
}

// planEmpty checks that a plan shows no changes.
func (w *cliWorkspace) planEmpty(what string) {
	w.t.Helper()
	if out, err := w.run("plan", "-detailed-exitcode", "-input=false", "-no-color"); err != nil {
		w.t.Fatalf("%s: the plan is not empty (%v):\n%s", what, err, tailLines(out, 60))
	}
}

// planActions plans and returns each changing resource's actions
// ("delete", "create", ...; no-ops left out) by address.
func (w *cliWorkspace) planActions(what string) map[string]string {
	w.t.Helper()
	w.mustRun(what, "plan", "-out=tfplan", "-input=false", "-no-color")
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions []string `json:"actions"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(w.mustRun(what, "show", "-json", "tfplan")), &plan); err != nil {
		w.t.Fatalf("%s: plan JSON: %v", what, err)
	}
	out := map[string]string{}
	for _, rc := range plan.ResourceChanges {
		if a := strings.Join(rc.Change.Actions, ","); a != "no-op" && a != "read" {
			out[rc.Address] = a
		}
	}
	return out
}

// resources returns the state's resources: address -> attributes.
func (w *cliWorkspace) resources() map[string]map[string]any {
	w.t.Helper()
	var st struct {
		Values *struct {
			RootModule struct {
				Resources []struct {
					Address string         `json:"address"`
					Values  map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(w.mustRun("show", "show", "-json")), &st); err != nil {
		w.t.Fatalf("state JSON: %v", err)
	}
	out := map[string]map[string]any{}
	if st.Values != nil {
		for _, r := range st.Values.RootModule.Resources {
			out[r.Address] = r.Values
		}
	}
	return out
}

// claimed is every baremetal_ip_claim of the state: owner -> address.
func (w *cliWorkspace) claimed() map[string]string {
	out := map[string]string{}
	for addr, v := range w.resources() {
		if strings.HasPrefix(addr, "baremetal_ip_claim.") {
			out[fmt.Sprint(v["owner"])] = fmt.Sprint(v["address"])
		}
	}
	return out
}

// logCount counts the provider log lines with msg.
func (w *cliWorkspace) logCount(msg string) int {
	b, _ := os.ReadFile(filepath.Join(w.dir, "terraform.log"))
	return strings.Count(string(b), msg)
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ipRecords is what Ironic records of pool: owner -> addresses.
func ipRecords(t *testing.T, pool string) map[string][]string {
	t.Helper()
	recs, err := ipStore(t).Addresses(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, r := range recs {
		out[r.Owner] = append(out[r.Owner], r.Address)
	}
	return out
}

// expectOneEach checks that Ironic records exactly the owners of want,
// once each, at the addresses want says, and no address twice.
func expectOneEach(t *testing.T, pool string, want map[string]string) {
	t.Helper()
	got := ipRecords(t, pool)
	byAddr := map[string]string{}
	var errs []string
	for owner, addrs := range got {
		if len(addrs) != 1 {
			errs = append(errs, fmt.Sprintf("owner %s holds %v", owner, addrs))
		}
		for _, a := range addrs {
			if other, dup := byAddr[a]; dup {
				errs = append(errs, fmt.Sprintf("%s held by %s and %s", a, other, owner))
			}
			byAddr[a] = owner
		}
		if w, ok := want[owner]; !ok {
			errs = append(errs, fmt.Sprintf("owner %s holds %v, and no state knows it (leaked)", owner, addrs))
		} else if len(addrs) == 1 && addrs[0] != w {
			errs = append(errs, fmt.Sprintf("owner %s: Ironic records %s, the state %s", owner, addrs[0], w))
		}
	}
	for owner := range want {
		if _, ok := got[owner]; !ok {
			errs = append(errs, fmt.Sprintf("owner %s: in the state, not recorded in Ironic", owner))
		}
	}
	if len(errs) > 0 {
		t.Fatalf("pool %s: %s", pool, strings.Join(errs, "; "))
	}
}

// ownersHCL is a pool named pool, created by the test, claimed by
// baremetal_ip_claim.ip for each owner.
func ownersHCL(pool string, owners ...string) string {
	q := make([]string, len(owners))
	for i, o := range owners {
		q[i] = fmt.Sprintf("%q", o)
	}
	return fmt.Sprintf(`
resource "baremetal_ip_claim" "ip" {
  for_each = toset([%s])
  pool     = %q
  owner    = each.key
}
`, strings.Join(q, ", "), pool)
}
