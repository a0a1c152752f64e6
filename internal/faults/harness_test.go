package faults

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

var (
	root, _     = filepath.Abs(filepath.Join("..", ".."))
	providerDir string // holds the provider binary the CLI runs
	tfrc        string // a CLI configuration with dev_overrides to it
)

func TestMain(m *testing.M) {
	if os.Getenv("BAREMETAL_FAULTS") == "" || os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		// The tests skip, saying why; nothing to build.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "faults-provider")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	providerDir = dir
	if tfrc, err = acctest.BuildProvider(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// preCheck skips unless the fault suite was asked for: its tests kill the
// rig, so they never run beside the other acceptance tests.
func preCheck(t *testing.T) *gophercloud.ServiceClient {
	t.Helper()
	if os.Getenv("BAREMETAL_FAULTS") == "" {
		t.Skip("fault test: it kills and restarts the Ironic rig; run it with make test-faults (BAREMETAL_FAULTS=1)")
	}
	return acctest.Ironic(t)
}

// rig runs scripts/ironic.sh with args on the rig of IRONIC_PORT.
func rig(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(root, "scripts", "ironic.sh"), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("scripts/ironic.sh %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	t.Logf("scripts/ironic.sh %s: %s", strings.Join(args, " "), strings.TrimSpace(errb.String()))
	return strings.TrimSpace(out.String())
}

// workspace is a Terraform working directory with one configuration.
type workspace struct {
	t   *testing.T
	dir string
	env []string
}

func newWorkspace(t *testing.T, config string, env ...string) *workspace {
	t.Helper()
	dir := t.TempDir()
	config = `terraform {
  required_providers {
    baremetal = { source = "baremetal-tf/baremetal" }
  }
}
` + config
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &workspace{t: t, dir: dir}
	w.env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+tfrc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
		"TF_LOG_PROVIDER=INFO", "TF_LOG_PATH="+filepath.Join(dir, "terraform.log"),
		"BAREMETAL_ENDPOINT="+acctest.Endpoint())
	w.env = append(w.env, env...)
	return w
}

func (w *workspace) command(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), append([]string{"-chdir=" + w.dir}, args...)...)
	cmd.Env = w.env
	// Its own process group: a SIGKILL reaches Terraform and the provider.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// run runs terraform ARGS to the end and returns its output and error.
func (w *workspace) run(args ...string) (string, time.Duration, error) {
	start := time.Now()
	out, err := w.command(args...).CombinedOutput()
	return string(out), time.Since(start), err
}

func (w *workspace) apply() (string, time.Duration, error) {
	return w.run("apply", "-auto-approve", "-input=false", "-no-color")
}

// mustApply applies and fails the test on an error.
func (w *workspace) mustApply(what string) time.Duration {
	w.t.Helper()
	out, d, err := w.apply()
	if err != nil {
		w.t.Fatalf("%s: terraform apply: %v\n%s", what, err, tail(out, 60))
	}
	return d
}

// destroy removes what the workspace created and fails on an error.
func (w *workspace) destroy() {
	w.t.Helper()
	out, _, err := w.run("destroy", "-auto-approve", "-input=false", "-no-color")
	if err != nil {
		w.t.Fatalf("terraform destroy: %v\n%s", err, tail(out, 60))
	}
}

// planEmpty checks that a plan after the apply shows no changes.
func (w *workspace) planEmpty() {
	w.t.Helper()
	out, _, err := w.run("plan", "-detailed-exitcode", "-input=false", "-no-color")
	if err != nil {
		w.t.Fatalf("plan after apply is not empty (%v):\n%s", err, tail(out, 60))
	}
}

// log returns the provider's INFO log so far.
func (w *workspace) log() string {
	b, _ := os.ReadFile(filepath.Join(w.dir, "terraform.log"))
	return string(b)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// errorsIn returns the "Error:" paragraphs of terraform's output, one line
// each.
func errorsIn(out string) []string {
	var errs []string
	// Terraform puts a blank line before each diagnostic; a wrapped line of
	// a message may itself start with "Error: " (Ironic 2025.1's Redfish
	// errors read "... Error: HTTP GET ...").
	for _, p := range strings.Split("\n"+out, "\n\nError: ")[1:] {
		p = strings.SplitN(p, "\n\n\n", 2)[0]
		errs = append(errs, strings.Join(strings.Fields(p), " "))
	}
	return errs
}

// fleet lists the nodes whose names start with prefix, by name.
func fleet(t *testing.T, sc *gophercloud.ServiceClient, prefix string) map[string][]nodes.Node {
	t.Helper()
	var all []nodes.Node
	for attempt := 0; ; attempt++ {
		pages, err := nodes.List(sc, nodes.ListOpts{Fields: []string{"uuid", "name", "provision_state", "reservation", "last_error"}}).AllPages(context.Background())
		if err == nil {
			all, err = nodes.ExtractNodes(pages)
		}
		if err == nil {
			break
		}
		if attempt == 30 {
			t.Fatalf("list nodes: %v", err)
		}
		time.Sleep(time.Second) // Ironic is restarting: poll it
	}
	out := map[string][]nodes.Node{}
	for _, n := range all {
		if strings.HasPrefix(n.Name, prefix) {
			out[n.Name] = append(out[n.Name], n)
		}
	}
	return out
}

// expectFleet checks that exactly the names exist, once each, in state
// (any state when state is "").
func expectFleet(t *testing.T, sc *gophercloud.ServiceClient, prefix string, names []string, state string) {
	t.Helper()
	got := fleet(t, sc, prefix)
	var errs []string
	for _, name := range names {
		ns := got[name]
		switch {
		case len(ns) == 0:
			errs = append(errs, name+" lost")
		case len(ns) > 1:
			errs = append(errs, fmt.Sprintf("%s duplicated (%d nodes)", name, len(ns)))
		case state != "" && ns[0].ProvisionState != state:
			errs = append(errs, fmt.Sprintf("%s in %q, want %q (last_error %q)", name, ns[0].ProvisionState, state, ns[0].LastError))
		}
		delete(got, name)
	}
	for name := range got {
		errs = append(errs, name+" is a node nobody asked for")
	}
	if len(errs) > 0 {
		t.Fatalf("nodes with prefix %s: %s", prefix, strings.Join(errs, "; "))
	}
}

// waitFor polls cond (an external process's state) every 200 ms until it
// holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(200 * time.Millisecond) // polling Ironic, not synchronising goroutines
	}
}

// fakeHosts is a configuration of n fake-hardware hosts named prefix-i.
func fakeHosts(prefix string, n int) (string, []string) {
	var b strings.Builder
	var names []string
	for i := range n {
		name := fmt.Sprintf("%s-%d", prefix, i)
		names = append(names, name)
		fmt.Fprintf(&b, `
resource "baremetal_host" "h%d" {
  name        = %q
  driver      = "fake-hardware"
  driver_info = { fake_note = "fault suite" }
  online      = true
}
`, i, name)
	}
	return b.String(), names
}

// fleetApply is `terraform apply` of fakeHosts(prefix, n), running in the
// background while a test breaks something under it.
type fleetApply struct {
	*workspace
	prefix string
	names  []string
	cmd    *exec.Cmd
	out    *strings.Builder
	start  time.Time
}

// startFleetApply writes the configuration of n fake-hardware hosts named
// prefix-i (env goes to Terraform) and starts applying it. The hosts are
// destroyed when the test ends.
func startFleetApply(t *testing.T, prefix string, n int, env ...string) *fleetApply {
	t.Helper()
	config, names := fakeHosts(prefix, n)
	a := &fleetApply{workspace: newWorkspace(t, config, env...), prefix: prefix, names: names, out: &strings.Builder{}}
	t.Cleanup(a.destroy)
	a.start = time.Now()
	a.cmd = a.command("apply", "-auto-approve", "-input=false", "-no-color")
	a.cmd.Stdout, a.cmd.Stderr = a.out, a.out
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return a
}

// waitMidApply waits until the apply is in the middle of its work: every
// node exists, at least 3 are past enroll (Ironic works on them), and not
// all are available yet. It returns each node's provision state (as
// "i=state") and how many nodes are in each.
func (a *fleetApply) waitMidApply(sc *gophercloud.ServiceClient) (states []string, inState map[string]int) {
	t := a.t
	t.Helper()
	n := len(a.names)
	waitFor(t, 3*time.Minute, fmt.Sprintf("%d nodes registered, 3 past enroll, not all available", n), func() bool {
		f := fleet(t, sc, a.prefix)
		avail, past := 0, 0
		for _, ns := range f {
			switch ns[0].ProvisionState {
			case "available":
				avail++
				past++
			case "enroll":
			default:
				past++
			}
		}
		return len(f) == n && past >= 3 && avail < n
	})
	inState = map[string]int{}
	for name, ns := range fleet(t, sc, a.prefix) {
		states = append(states, name[len(a.prefix)+1:]+"="+ns[0].ProvisionState)
		inState[ns[0].ProvisionState]++
	}
	return states, inState
}

// wait waits for the apply to end. When it failed, it logs the errors,
// checks that each names a host, and returns them.
func (a *fleetApply) wait() (took time.Duration, errs []string, err error) {
	t := a.t
	t.Helper()
	err = a.cmd.Wait()
	took = time.Since(a.start)
	if err == nil {
		return took, nil, nil
	}
	errs = errorsIn(a.out.String())
	t.Logf("apply failed (%v) after %s; errors:\n%s", err, took.Round(time.Second), strings.Join(errs, "\n"))
	for _, e := range errs {
		if !hostErrorRE.MatchString(e) {
			t.Errorf("error does not name a host: %s", e)
		}
	}
	return took, errs, err
}

// row is one line of the fault table.
type row struct {
	Fault, Happened, Took, Lost string
}

// record appends r to .tools/faults.txt and the test log.
func record(t *testing.T, r row) {
	t.Helper()
	line := fmt.Sprintf("| %s | %s | %s | %s |\n", r.Fault, r.Happened, r.Took, r.Lost)
	t.Log(line)
	_ = os.MkdirAll(filepath.Join(root, ".tools"), 0o755)
	f, err := os.OpenFile(filepath.Join(root, ".tools", "faults.txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, _ = f.WriteString(line)
}

var hostErrorRE = regexp.MustCompile(`host "([^"]+)"`)

func secs(d time.Duration) string { return fmt.Sprintf("%.0f s", d.Seconds()) }
