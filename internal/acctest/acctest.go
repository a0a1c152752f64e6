// Package acctest is the shared harness of the acceptance tests: the
// provider factory, the pre-check that skips with a clear message when the
// test rig is not there, and a direct Ironic client to look behind
// Terraform's back.
package acctest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/clients"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/provider"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/testenv"
)

// ProviderFactories serves the provider in-process (protocol 6).
var ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"baremetal": providerserver.NewProtocol6WithError(provider.New("test")()),
}

// Endpoint is the Ironic the tests use.
func Endpoint() string {
	if e := os.Getenv("BAREMETAL_ENDPOINT"); e != "" {
		return e
	}
	return "http://127.0.0.1:6385"
}

// PreCheck skips the test, saying why, unless Terraform and Ironic are
// there. `make testacc` provides both.
func PreCheck(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make testacc starts Ironic and builds Terraform)")
	}
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		t.Skip("acceptance test: TF_ACC_TERRAFORM_PATH is not set (make testacc sets it to scripts/terraform.sh's Terraform)")
	}
	// Asked for (TF_ACC) and Terraform is there: a missing Ironic is a
	// failure, not a reason to skip.
	if err := ironicAnswers(); err != nil {
		t.Fatalf("acceptance test: Ironic does not answer at %s (make testacc starts it): %v", Endpoint(), err)
	}
}

var (
	probeOnce sync.Once
	probeErr  error
)

// ironicAnswers checks once per test binary that Ironic answers, giving it
// a minute: the rig's Ironic sometimes stalls for tens of seconds, and a
// stall is not a reason to skip tests.
func ironicAnswers() error {
	probeOnce.Do(func() { probeErr = testenv.WaitForIronic(Endpoint(), time.Minute) })
	return probeErr
}

// Ironic returns a client for the test Ironic. It skips the test first,
// as PreCheck does, when the rig is not there.
func Ironic(t *testing.T) *gophercloud.ServiceClient {
	t.Helper()
	PreCheck(t)
	conn, err := clients.Connect(context.Background(), clients.Config{Endpoint: Endpoint()})
	if err != nil {
		t.Fatalf("connect to Ironic: %v", err)
	}
	return conn.Client
}

// IronicHas tells whether the test Ironic offers f at the microversion
// the provider negotiates with it.
func IronicHas(t *testing.T, f lifecycle.Feature) bool {
	t.Helper()
	PreCheck(t)
	conn, err := clients.Connect(context.Background(), clients.Config{Endpoint: Endpoint()})
	if err != nil {
		t.Fatalf("connect to Ironic: %v", err)
	}
	return conn.Has(f)
}

// EnabledHardwareTypes lists the hardware types the test Ironic enables.
func EnabledHardwareTypes(t *testing.T) []string {
	t.Helper()
	list, err := ironic.NewCatalog(Ironic(t)).EnabledHardwareTypes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// Name returns a unique host name with the given prefix.
func Name(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%s", prefix, hex.EncodeToString(b))
}

// MAC returns a random locally administered MAC address.
func MAC() string {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	return fmt.Sprintf("52:54:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3])
}

// NodesNamed lists the Ironic nodes with the given name (at most one, unless
// something created a duplicate).
func NodesNamed(t *testing.T, sc *gophercloud.ServiceClient, name string) []nodes.Node {
	t.Helper()
	opts := withChildren{nodes.ListOpts{Fields: []string{"uuid", "name", "provision_state"}}, lifecycle.FeatureParentNode.In(sc.Microversion)}
	pages, err := nodes.List(sc, opts).AllPages(context.Background())
	if err != nil {
		t.Fatalf("list nodes: %v", err)
	}
	all, err := nodes.ExtractNodes(pages)
	if err != nil {
		t.Fatalf("list nodes: %v", err)
	}
	var out []nodes.Node
	for _, n := range all {
		if n.Name == name {
			out = append(out, n)
		}
	}
	return out
}

// withChildren lists child nodes too (include_children, 1.83+): Ironic
// 29.0.5 makes every node it PATCHes its own child.
type withChildren struct {
	nodes.ListOpts
	children bool
}

func (o withChildren) ToNodeListQuery() (string, error) {
	q, err := o.ListOpts.ToNodeListQuery()
	if o.children {
		q += map[bool]string{true: "&", false: "?"}[strings.Contains(q, "?")] + "include_children=True"
	}
	return q, err
}

// Node reads in full the one Ironic node named name (an error when there
// is none, or more than one): every acceptance test that checks a node
// behind Terraform's back reads it here.
func Node(t *testing.T, name string) (*nodes.Node, error) {
	t.Helper()
	sc := Ironic(t)
	found := NodesNamed(t, sc, name)
	if len(found) != 1 {
		return nil, fmt.Errorf("%d Ironic nodes named %s, want exactly 1", len(found), name)
	}
	return nodes.Get(context.Background(), sc, found[0].UUID).Extract()
}

// NodeCheck checks the Ironic node named name (Node) with check.
func NodeCheck(t *testing.T, name string, check func(*nodes.Node) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		n, err := Node(t, name)
		if err != nil {
			return err
		}
		return check(n)
	}
}

// UpdateNode changes the Ironic node ident (its name or UUID) behind
// Terraform's back, as an operator might, with the JSON patch ops; when
// Ironic refuses, the test fails saying what it tried to do.
func UpdateNode(t *testing.T, ident, what string, ops ...nodes.Patch) {
	t.Helper()
	if _, err := nodes.Update(context.Background(), Ironic(t), ident, nodes.UpdateOpts(ops)).Extract(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// DeleteNodeNamed removes a node behind Terraform's back (maintenance on,
// then delete), as an operator might.
func DeleteNodeNamed(t *testing.T, sc *gophercloud.ServiceClient, name string) {
	t.Helper()
	ctx := context.Background()
	for _, n := range NodesNamed(t, sc, name) {
		_ = nodes.SetMaintenance(ctx, sc, n.UUID, nodes.MaintenanceOpts{Reason: "test"}).ExtractErr()
		if err := nodes.Delete(ctx, sc, n.UUID).ExtractErr(); err != nil {
			t.Fatalf("delete node %s: %v", name, err)
		}
	}
}

// LocalIronic skips the test unless the rig's Ironic runs on this machine,
// on loopback: what needs its database (need says what, e.g. "seeding an
// inventory") cannot run against a remote one.
func LocalIronic(t *testing.T, need string) {
	t.Helper()
	u, err := url.Parse(Endpoint())
	if err != nil {
		t.Skipf("BAREMETAL_ENDPOINT %q: %v", Endpoint(), err)
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		t.Skipf("%s needs the test rig's Ironic on loopback, not %s", need, u.Host)
	}
}

// RigSQL runs a SQL statement on the test rig's Ironic database (through
// scripts/ironic.sh sql, so IRONIC_PORT must name the rig) and returns its
// rows, tab-separated. It is for looking at what Ironic keeps but does not
// show, such as a deployed config drive.
func RigSQL(stmt string) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(filepath.Join(root, "scripts", "ironic.sh"), "sql", stmt)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("scripts/ironic.sh sql: %v: %s", err, ee.Stderr)
		}
		return "", fmt.Errorf("scripts/ironic.sh sql: %v", err)
	}
	return string(out), nil
}

// repoRoot is the directory of go.mod above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
