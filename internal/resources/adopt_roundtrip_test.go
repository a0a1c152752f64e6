package resources_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/provider"
)

// Adoption must not touch a fleet: the round trip import, read, generated
// configuration (terraform query -generate-config-out), plan gives no
// change for every attribute the list resources emit, whatever the node
// lacks (resource class, driver_info, labels, ports) and wherever it is
// (enroll, manageable, available, active); the adopting apply writes
// nothing to Ironic; a later change of one attribute leaves each node in
// its provision state; and a move to available is in the plan, with a
// warning naming cleaning and power-off.

// adoptNode is a node made outside Terraform, in one of the shapes an
// adopted fleet has.
type adoptNode struct {
	name       string
	state      string // Ironic provision state: enroll, manageable, available, active
	class      string // resource class; "" for none
	driverInfo map[string]any
	labels     map[string]string
	port       string // a port's MAC; "" for none
}

// adoptNodes is the table: each provision state, bare (no resource class,
// driver_info, labels or port) and full.
func adoptNodes() []adoptNode {
	var out []adoptNode
	for i, st := range []string{"enroll", "manageable", "available", "active"} {
		out = append(out,
			adoptNode{name: st + "-bare", state: st},
			adoptNode{name: st + "-full", state: st, class: "gold",
				driverInfo: map[string]any{"deploy_kernel": "http://boot.example/k", "ipmi_address": "10.9.0.1"},
				labels:     map[string]string{"rack": "r1"}, port: fmt.Sprintf("52:54:00:ad:00:%02x", i)})
	}
	return out
}

// adoptRig is an Ironic the round trip runs against: the in-process fake
// or the test rig.
type adoptRig interface {
	endpoint() string
	// create makes n (named prefix+n.name) in n.state and returns its UUID.
	create(t *testing.T, prefix string, n adoptNode) string
	state(t *testing.T, uuid string) string
	// mark starts counting writes; writes returns those to the nodes since.
	mark(t *testing.T)
	writes(t *testing.T, uuids []string) []string
}

// adoptionRoundTrip runs the whole story against rig with Terraform tf
// (1.14+) and returns the generated configuration.
func adoptionRoundTrip(t *testing.T, rig adoptRig, tf string) {
	batch := acctest.Name("adopt-rt")
	table := adoptNodes()
	uuids := make([]string, len(table))
	byName := map[string]int{}
	for i, n := range table {
		uuids[i] = rig.create(t, batch+"-", n)
		byName[batch+"-"+n.name] = i
	}
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("main.tf", fmt.Sprintf("provider \"baremetal\" {\n  endpoint = %q\n}\n", rig.endpoint()))
	write("adopt.tfquery.hcl", fmt.Sprintf(`
list "baremetal_host" "fleet" {
  provider = baremetal
  config {
    name_prefix = "%[1]s-"
  }
}

list "baremetal_deployment" "fleet" {
  provider = baremetal
  config {
    name_prefix = "%[1]s-"
  }
}
`, batch))
	cli := acctest.NewCLI(t, dir, acctest.Serve(t, providerserver.NewProtocol6(provider.New("test")())()))
	cli.UseTerraform(tf)
	run := func(args ...string) string { t.Helper(); return cli.MustRun(t, args...) }
	emptyPlan := func(when string) { t.Helper(); t.Logf("plan %s: %s", when, cli.EmptyPlan(t, when)) }

	run("query", "-generate-config-out=adopted.tf")
	raw, err := os.ReadFile(filepath.Join(dir, "adopted.tf"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := generatedBlocks(string(raw))
	hosts, deployments := 0, 0
	attrs := map[string]map[string]bool{}
	for _, b := range blocks {
		if attrs[b.typ] == nil {
			attrs[b.typ] = map[string]bool{}
		}
		for _, a := range b.attrs {
			attrs[b.typ][a] = true
		}
		switch b.typ {
		case "baremetal_host":
			hosts++
		case "baremetal_deployment":
			deployments++
		}
	}
	if hosts != len(table) || deployments != 2 {
		t.Fatalf("generated %d hosts and %d deployments, want %d and 2:\n%s", hosts, deployments, len(table), raw)
	}
	for typ, set := range attrs {
		t.Logf("%s attributes in the generated configuration: %s", typ, strings.Join(sortedKeys(set), ", "))
	}
	for _, b := range blocks {
		if b.typ == "baremetal_host" {
			t.Logf("generated for %s (%s):\n%s", b.name, table[byName[b.name]].state, b.text)
		}
	}

	out := run("plan")
	if want := fmt.Sprintf("Plan: %d to import, 0 to add, 0 to change, 0 to destroy.", hosts+deployments); !strings.Contains(out, want) {
		t.Fatalf("the plan of the generated configuration is not %q:\n%s", want, out)
	}
	t.Logf("plan of the generated configuration: %s", want(out, "Plan:"))
	rig.mark(t)
	out = run("apply", "-auto-approve")
	if want := fmt.Sprintf("Resources: %d imported, 0 added, 0 changed, 0 destroyed.", hosts+deployments); !strings.Contains(out, want) {
		t.Fatalf("the adopting apply is not %q:\n%s", want, out)
	}
	if w := rig.writes(t, uuids); len(w) > 0 {
		t.Fatalf("the adopting apply wrote to Ironic:\n%s", strings.Join(w, "\n"))
	}
	t.Logf("adopting apply: %s; Ironic writes to the nodes: 0", want(out, "Apply complete!"))
	emptyPlan("after the adopting apply")
	for i, n := range table {
		if got := rig.state(t, uuids[i]); got != n.state {
			t.Errorf("%s: provision state %q after the adoption, want %q", n.name, got, n.state)
		}
	}

	// One harmless change on every host: each stays where it is, and the
	// plan warns of no move.
	var override strings.Builder
	for _, b := range blocks {
		if b.typ == "baremetal_host" {
			fmt.Fprintf(&override, "resource \"baremetal_host\" %q {\n  labels = { adopted = \"yes\" }\n}\n\n", b.addr)
		}
	}
	write("change_override.tf", override.String())
	out = run("plan")
	if want := fmt.Sprintf("Plan: 0 to add, %d to change, 0 to destroy.", hosts); !strings.Contains(out, want) {
		t.Fatalf("the plan of a label on each host is not %q:\n%s", want, out)
	}
	if strings.Contains(out, "moves from") {
		t.Fatalf("a label change plans a provision state move:\n%s", out)
	}
	rig.mark(t)
	run("apply", "-auto-approve")
	var rows strings.Builder
	rows.WriteString("| node | resource class | driver_info | labels | port | adopting apply: Ironic writes | state after adoption | label change: Ironic writes | state after |\n|---|---|---|---|---|---|---|---|---|\n")
	for i, n := range table {
		got := rig.state(t, uuids[i])
		if got != n.state {
			t.Errorf("%s: provision state %q after a label change, want %q", n.name, got, n.state)
		}
		fmt.Fprintf(&rows, "| %s | %q | %d keys | %d | %v | 0 | %s | %d | %s |\n", n.name, n.class, len(n.driverInfo), len(n.labels),
			n.port != "", n.state, len(rig.writes(t, uuids[i:i+1])), got)
	}
	t.Logf("per node (the adopting apply wrote nothing to any):\n%s", rows.String())
	emptyPlan("after the label change")

	// A move to available is planned and warned about.
	moved := byName[batch+"-manageable-bare"]
	addr := ""
	for _, b := range blocks {
		if b.name == batch+"-manageable-bare" && b.typ == "baremetal_host" {
			addr = b.addr
		}
	}
	write("move_override.tf", fmt.Sprintf("resource \"baremetal_host\" %q {\n  desired_state = \"available\"\n}\n", addr))
	out = run("plan")
	for _, w := range []string{`desired_state\s+= "manageable" -> "available"`, `ironic_state\s+= "manageable" -> "available"`,
		`Warning: Host ` + regexp.QuoteMeta(batch) + `-manageable-bare moves from manageable to available`, `automated cleaning`, `power-off`} {
		if !regexp.MustCompile(w).MatchString(out) {
			t.Fatalf("the plan of desired_state = \"available\" lacks %s:\n%s", w, out)
		}
	}
	t.Logf("plan of desired_state = \"available\" on a manageable host:\n%s", planExcerpt(out))
	run("apply", "-auto-approve")
	if got := rig.state(t, uuids[moved]); got != "available" {
		t.Errorf("the moved host is %q, want available", got)
	}
	emptyPlan("after the move")
	run(append([]string{"state", "rm"}, strings.Fields(run("state", "list"))...)...)
}

// generatedBlock is a resource block terraform query wrote.
type generatedBlock struct {
	typ, addr, name, text string
	attrs                 []string
}

var (
	resourceHeader = regexp.MustCompile(`(?m)^resource "(baremetal_[a-z_]+)" "([^"]+)" \{$`)
	attrLine       = regexp.MustCompile(`(?m)^  ([a-z_]+)\s+=`)
	nameLine       = regexp.MustCompile(`(?m)^  (?:name|host_name)\s+= "([^"]+)"`)
)

func generatedBlocks(s string) []generatedBlock {
	var out []generatedBlock
	locs := resourceHeader.FindAllStringSubmatchIndex(s, -1)
	for i, l := range locs {
		end := len(s)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		text := s[l[0]:end]
		if j := strings.Index(text, "\n}\n"); j >= 0 {
			text = text[:j+2]
		}
		b := generatedBlock{typ: s[l[2]:l[3]], addr: s[l[4]:l[5]], text: text}
		if m := nameLine.FindStringSubmatch(text); m != nil {
			b.name = m[1]
		}
		for _, m := range attrLine.FindAllStringSubmatch(text, -1) {
			b.attrs = append(b.attrs, m[1])
		}
		out = append(out, b)
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// want returns the first line of out that starts with prefix.
func want(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// planExcerpt is the plan from its first resource to its end.
func planExcerpt(out string) string {
	if i := strings.Index(out, "Terraform will perform"); i >= 0 {
		return out[i:]
	}
	return out
}

// fakeAdoptRig is the in-process fake Ironic at Ironic 2025.1's API.
type fakeAdoptRig struct{ srv *ironictest.Server }

func (f fakeAdoptRig) endpoint() string { return f.srv.Endpoint() }

func (f fakeAdoptRig) create(_ *testing.T, prefix string, n adoptNode) string {
	node := nodes.Node{Name: prefix + n.name, Driver: "fake-hardware", ProvisionState: n.state, ResourceClass: n.class,
		DriverInfo: n.driverInfo, PowerState: "power off"}
	if n.labels != nil {
		node.Extra = map[string]any{"labels": n.labels}
	}
	if n.state == "active" {
		node.PowerState = "power on"
		node.InstanceInfo = map[string]any{"image_source": "http://images.example/os.qcow2", "image_checksum": "0123456789abcdef0123456789abcdef"}
	}
	id := f.srv.AddNode(node)
	if n.port != "" {
		f.srv.AddPort(id, n.port)
	}
	return id
}

func (f fakeAdoptRig) state(_ *testing.T, uuid string) string {
	return f.srv.MustNode(uuid).ProvisionState
}

func (f fakeAdoptRig) mark(*testing.T) { f.srv.ResetRequests() }

func (f fakeAdoptRig) writes(_ *testing.T, uuids []string) []string {
	var out []string
	for _, r := range f.srv.Requests() {
		if r.Method == "GET" || r.Method == "HEAD" {
			continue
		}
		for _, id := range uuids {
			if strings.Contains(r.Path, id) {
				out = append(out, r.String())
			}
		}
	}
	return out
}

// TestAdoptionRoundTrip_fake is the round trip on the fake Ironic, with
// Terraform 1.14 (BAREMETAL_TF114_PATH, which make test sets).
func TestAdoptionRoundTrip_fake(t *testing.T) {
	tf := os.Getenv("BAREMETAL_TF114_PATH")
	if tf == "" {
		t.Skip("needs Terraform 1.14+ for terraform query: set BAREMETAL_TF114_PATH (make test sets it)")
	}
	t.Parallel()
	srv := ironictest.New(t)
	srv.MaxMicroversion = ironictest.OCIMaxMicroversion
	adoptionRoundTrip(t, fakeAdoptRig{srv}, tf)
}
