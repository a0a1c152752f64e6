package lifecycle

import (
	"reflect"
	"strings"
	"testing"
)

// avail returns an available, unclaimed host.
func claimHost(name string, labels map[string]string) HostSummary {
	return HostSummary{
		Observation: Observation{
			Exists: true, ID: "uuid-" + name, Name: name, State: StateAvailable, ProvisionState: "available",
			Labels: labels, ResourceClass: "baremetal",
		},
		Hardware: &HardwareDetails{CPUCount: 8, RAMMebibytes: 16384, Storage: []Disk{{Name: "/dev/sda", SizeBytes: 100 << 30}}},
	}
}

func claimNames(hs []HostSummary) []string {
	out := []string{}
	for _, h := range hs {
		out = append(out, h.Name)
	}
	return out
}

func TestLabelExpressionOperators(t *testing.T) {
	labels := map[string]string{"zone": "a", "rack": "r1"}
	cases := []struct {
		e    LabelExpression
		want bool
	}{
		{LabelExpression{"zone", OpIn, []string{"a", "b"}}, true},
		{LabelExpression{"zone", OpIn, []string{"b"}}, false},
		{LabelExpression{"missing", OpIn, []string{"a"}}, false},
		{LabelExpression{"zone", OpNotIn, []string{"b"}}, true},
		{LabelExpression{"zone", OpNotIn, []string{"a"}}, false},
		{LabelExpression{"missing", OpNotIn, []string{"a"}}, true},
		{LabelExpression{"rack", OpExists, nil}, true},
		{LabelExpression{"missing", OpExists, nil}, false},
		{LabelExpression{"missing", OpDoesNotExist, nil}, true},
		{LabelExpression{"rack", OpDoesNotExist, nil}, false},
		{LabelExpression{"rack", "Bogus", nil}, false},
	}
	for _, c := range cases {
		if got := c.e.Matches(labels); got != c.want {
			t.Errorf("%+v.Matches = %v, want %v", c.e, got, c.want)
		}
	}
}

func TestLabelExpressionValidate(t *testing.T) {
	cases := []struct {
		e       LabelExpression
		wantErr string
	}{
		{LabelExpression{"k", OpIn, []string{"a"}}, ""},
		{LabelExpression{"k", OpIn, nil}, "needs at least one value"},
		{LabelExpression{"k", OpNotIn, nil}, "needs at least one value"},
		{LabelExpression{"k", OpExists, nil}, ""},
		{LabelExpression{"k", OpExists, []string{"a"}}, "takes no values"},
		{LabelExpression{"k", OpDoesNotExist, []string{"a"}}, "takes no values"},
		{LabelExpression{"k", "in", []string{"a"}}, "unknown operator"},
		{LabelExpression{"", OpExists, nil}, "key is empty"},
	}
	for _, c := range cases {
		err := c.e.Validate()
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", c.e, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%+v: error %v, want %q", c.e, err, c.wantErr)
		}
	}
	if err := (Selector{MatchExpressions: []LabelExpression{{"k", OpExists, nil}, {"j", OpIn, nil}}}).Validate(); err == nil ||
		!strings.Contains(err.Error(), "match expression 1") {
		t.Errorf("Selector.Validate = %v, want an error naming expression 1", err)
	}
}

func TestSelectHostsRejectionReasons(t *testing.T) {
	inspecting := claimHost("h-inspecting", nil)
	inspecting.State, inspecting.ProvisionState = StateInspecting, "inspect wait"
	provisioned := claimHost("h-provisioned", nil)
	provisioned.State, provisioned.ProvisionState = StateProvisioned, "active"
	cleanFailed := claimHost("h-cleanfailed", nil)
	// The state mapping calls a clean failure after provide "available".
	cleanFailed.State, cleanFailed.ProvisionState, cleanFailed.LastError = StateAvailable, "clean failed", "boom"
	cleaning := claimHost("h-cleaning", nil)
	cleaning.ProvisionState = "clean wait"
	maint := claimHost("h-maint", map[string]string{"role": "worker"})
	maint.Maintenance = true
	claimed := claimHost("h-claimed", map[string]string{"role": "worker"})
	claimed.AllocationID = "alloc-other"
	wrongLabels := claimHost("h-labels", map[string]string{"role": "master"})
	wrongRC := claimHost("h-rc", map[string]string{"role": "worker"})
	wrongRC.ResourceClass = "gpu"
	noTraits := claimHost("h-traits", map[string]string{"role": "worker"})
	fewCPU := claimHost("h-cpu", map[string]string{"role": "worker"})
	fewCPU.Traits = []string{"CUSTOM_X"}
	fewCPU.Hardware = &HardwareDetails{CPUCount: 2, RAMMebibytes: 16384, Storage: []Disk{{SizeBytes: 100 << 30}}}
	fewRAM := claimHost("h-ram", map[string]string{"role": "worker"})
	fewRAM.Traits = []string{"CUSTOM_X"}
	fewRAM.Hardware = &HardwareDetails{CPUCount: 8, RAMMebibytes: 1024, Storage: []Disk{{SizeBytes: 100 << 30}}}
	smallDisk := claimHost("h-disk", map[string]string{"role": "worker"})
	smallDisk.Traits = []string{"CUSTOM_X"}
	smallDisk.Hardware = &HardwareDetails{CPUCount: 8, RAMMebibytes: 16384, Storage: []Disk{{SizeBytes: 10 << 30}}}
	noHW := claimHost("h-nohw", map[string]string{"role": "worker"})
	noHW.Traits = []string{"CUSTOM_X"}
	noHW.Hardware = nil
	notCandidate := claimHost("h-notcand", map[string]string{"role": "worker"})
	good := claimHost("h-good", map[string]string{"role": "worker"})
	good.Traits = []string{"CUSTOM_X", "CUSTOM_Y"}

	hosts := []HostSummary{inspecting, provisioned, cleanFailed, cleaning, maint, claimed, wrongLabels, wrongRC,
		noTraits, fewCPU, fewRAM, smallDisk, noHW, notCandidate, good}
	var cands []string
	for _, h := range hosts {
		if h.Name != "h-notcand" {
			cands = append(cands, h.Name)
		}
	}
	cands[0] = inspecting.ID // ids work too
	sel := Selector{
		MatchLabels: map[string]string{"role": "worker"}, ResourceClass: "baremetal", Traits: []string{"CUSTOM_X"},
		MinCPUs: 4, MinRAMMebibytes: 8192, MinDiskGigabytes: 50, Candidates: cands,
	}
	got, rej := SelectHosts(hosts, sel, "")
	if !reflect.DeepEqual(claimNames(got), []string{"h-good"}) {
		t.Fatalf("selected %v, want [h-good]", claimNames(got))
	}
	want := map[string]int{
		ReasonNotCandidate: 1, ReasonInError: 1, ReasonNotAvailable: 3, ReasonMaintenance: 1, ReasonClaimed: 1,
		ReasonLabels: 1, ReasonResourceClass: 1, ReasonTraits: 1, ReasonCPUs: 1, ReasonRAM: 1, ReasonDisk: 1, ReasonNoHardware: 1,
	}
	if !reflect.DeepEqual(rej.Counts, want) {
		t.Errorf("counts %v\nwant   %v", rej.Counts, want)
	}
	if rej.Considered != len(hosts) {
		t.Errorf("considered %d, want %d", rej.Considered, len(hosts))
	}
	msg := rej.Error()
	for _, part := range []string{
		"no available host matches the claim: 15 hosts considered",
		"1 not a candidate",
		"1 in error (state: clean failed 1)",
		"3 not available (state: clean wait 1, inspecting 1, provisioned 1)",
		"1 in maintenance", "1 already claimed", "1 labels do not match", "1 resource class does not match",
		"1 missing traits", "1 too few CPUs", "1 too little RAM", "1 too small a disk", "1 hardware unknown",
	} {
		if !strings.Contains(msg, part) {
			t.Errorf("message lacks %q:\n%s", part, msg)
		}
	}
	// Reasons appear in the documented order.
	if strings.Index(msg, "not a candidate") > strings.Index(msg, "in error") ||
		strings.Index(msg, "in maintenance") > strings.Index(msg, "labels do not match") {
		t.Errorf("reasons out of order: %s", msg)
	}
}

func TestSelectHostsNoneMessage(t *testing.T) {
	a := claimHost("a", map[string]string{"role": "master"})
	b := claimHost("b", nil)
	b.State = StateInspecting
	got, rej := SelectHosts([]HostSummary{a, b}, Selector{MatchLabels: map[string]string{"role": "worker"}}, "")
	if len(got) != 0 {
		t.Fatalf("selected %v", claimNames(got))
	}
	want := "no available host matches the claim: 2 hosts considered; 1 not available (state: inspecting 1); 1 labels do not match"
	if rej.Error() != want {
		t.Errorf("got  %q\nwant %q", rej.Error(), want)
	}
	if _, rej := SelectHosts(nil, Selector{}, ""); rej.Error() != "no available host matches the claim: 0 hosts considered" {
		t.Errorf("empty: %q", rej.Error())
	}
}

func TestSelectHostsDeterministicOrder(t *testing.T) {
	hosts := []HostSummary{claimHost("c", nil), claimHost("a", nil), claimHost("b", nil)}
	dup := claimHost("a", nil)
	dup.ID = "uuid-0"
	hosts = append(hosts, dup)
	got, _ := SelectHosts(hosts, Selector{}, "")
	var ids []string
	for _, h := range got {
		ids = append(ids, h.ID)
	}
	want := []string{"uuid-0", "uuid-a", "uuid-b", "uuid-c"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("order %v, want %v (by name, then uuid)", ids, want)
	}
}

func TestSelectHostsOwnAllocationFirst(t *testing.T) {
	mine := claimHost("z", nil)
	mine.AllocationID = "alloc-mine"
	mine.State, mine.ProvisionState = StateProvisioned, "active" // claimed and deployed
	other := claimHost("y", nil)
	other.AllocationID = "alloc-other"
	got, rej := SelectHosts([]HostSummary{claimHost("a", nil), mine, other}, Selector{}, "", "alloc-mine")
	if !reflect.DeepEqual(claimNames(got), []string{"z", "a"}) {
		t.Errorf("order %v, want [z a]", claimNames(got))
	}
	if rej.Counts[ReasonClaimed] != 1 {
		t.Errorf("counts %v", rej.Counts)
	}
}

func TestSelectHostsSpread(t *testing.T) {
	fd := func(name, zone string) HostSummary { return claimHost(name, map[string]string{"zone": zone}) }
	taken := fd("a0", "a")
	taken.AllocationID = "x"
	taken2 := fd("a9", "a")
	taken2.AllocationID = "y"
	takenB := fd("b9", "b")
	takenB.AllocationID = "z"
	hosts := []HostSummary{
		taken, taken2, takenB,
		fd("a1", "a"), fd("a2", "a"),
		fd("b1", "b"), fd("b2", "b"),
		fd("c1", "c"), fd("c2", "c"),
		claimHost("nolabel", nil),
	}
	got, _ := SelectHosts(hosts, Selector{}, "zone")
	// claimed: a=2, b=1, c=0. loads: c1 0, c2 1, b1 1, b2 2, a1 2, a2 3.
	want := []string{"c1", "b1", "c2", "a1", "b2", "a2", "nolabel"}
	if !reflect.DeepEqual(claimNames(got), want) {
		t.Errorf("spread order %v, want %v", claimNames(got), want)
	}
	// Without the spread label the order is by name.
	got, _ = SelectHosts(hosts, Selector{}, "")
	want = []string{"a1", "a2", "b1", "b2", "c1", "c2", "nolabel"}
	if !reflect.DeepEqual(claimNames(got), want) {
		t.Errorf("default order %v, want %v", claimNames(got), want)
	}
}

func TestSelectorRejectIgnoresAvailability(t *testing.T) {
	h := claimHost("a", map[string]string{"k": "v"})
	h.State = StateProvisioned
	h.AllocationID = "x"
	if r := (Selector{MatchLabels: map[string]string{"k": "v"}}).Reject(h); r != "" {
		t.Errorf("Reject = %q, want match", r)
	}
	if r := (Selector{Candidates: []string{"b"}}).Reject(h); r != ReasonNotCandidate {
		t.Errorf("Reject = %q", r)
	}
	if LargestDiskGigabytes(&HardwareDetails{Storage: []Disk{{SizeBytes: 20 << 30}, {SizeBytes: 120 << 30}}}) != 120 {
		t.Error("LargestDiskGigabytes")
	}
}
