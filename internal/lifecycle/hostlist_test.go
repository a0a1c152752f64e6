package lifecycle

import (
	"regexp"
	"testing"
)

func TestHostQueryMatches(t *testing.T) {
	on, off := true, false
	img := &Image{URL: "http://images/os.qcow2"}
	h := ListedHost{HostSummary: HostSummary{Observation: Observation{
		Name: "r01-node-07", Driver: "redfish", ResourceClass: "gpu", ProvisionState: "active", State: StateProvisioned,
		ConductorGroup: "rack1", Shard: "s1", Labels: map[string]string{"rack": "r01", "role": "worker"}, DeployedImage: img,
	}}, Owner: "p1"}
	managed := h
	managed.Managed = true
	noImage := h
	noImage.DeployedImage = nil
	for _, c := range []struct {
		name string
		q    HostQuery
		h    ListedHost
		want bool
	}{
		{"everything", HostQuery{}, h, true},
		{"prefix", HostQuery{NamePrefix: "r01-"}, h, true},
		{"other prefix", HostQuery{NamePrefix: "r02-"}, h, false},
		{"regex", HostQuery{NameRegex: regexp.MustCompile(`node-0[0-9]$`)}, h, true},
		{"regex misses", HostQuery{NameRegex: regexp.MustCompile(`^node`)}, h, false},
		{"labels", HostQuery{Labels: map[string]string{"rack": "r01"}}, h, true},
		{"label value", HostQuery{Labels: map[string]string{"rack": "r02"}}, h, false},
		{"label missing", HostQuery{Labels: map[string]string{"zone": "a"}}, h, false},
		{"unmanaged", HostQuery{Unmanaged: true}, h, true},
		{"managed left out", HostQuery{Unmanaged: true}, managed, false},
		{"deployed", HostQuery{Deployed: true}, h, true},
		{"active without image", HostQuery{Deployed: true}, noImage, false},
		{"conductor group without case", HostQuery{ConductorGroup: "RACK1"}, h, true},
		{"fields", HostQuery{ResourceClass: "gpu", ProvisionState: "active", Driver: "redfish", Shard: "s1", Owner: "p1", Maintenance: &off}, h, true},
		{"maintenance", HostQuery{Maintenance: &on}, h, false},
		{"owner", HostQuery{Owner: "p2"}, h, false},
	} {
		if got := c.q.Matches(c.h); got != c.want {
			t.Errorf("%s: Matches = %v, want %v", c.name, got, c.want)
		}
	}
}
