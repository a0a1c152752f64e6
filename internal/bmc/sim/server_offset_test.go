package sim

import (
	"encoding/json"
	"net/http"
	"testing"
)

// Two simulators for one Ironic must not hand out the same MACs: system i
// of a simulator started with an offset has profile offset+i.
func TestStartProfileOffsetGivesDistinctMACs(t *testing.T) {
	mac := func(s *Server, id string) string {
		req, _ := http.NewRequest(http.MethodGet, s.SystemURL(id)+"/EthernetInterfaces/eno1", nil)
		req.SetBasicAuth("admin", "password")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var nic struct{ MACAddress string }
		if err := json.NewDecoder(resp.Body).Decode(&nic); err != nil || nic.MACAddress == "" {
			t.Fatalf("%s eno1: status %d, %v", id, resp.StatusCode, err)
		}
		return nic.MACAddress
	}
	a, err := Start(Options{}, 2, "admin", "password")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Start(Options{ProfileOffset: 2}, 2, "admin", "password")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	seen := map[string]bool{}
	for _, s := range []*Server{a, b} {
		for _, id := range s.SystemIDs() {
			m := mac(s, id)
			if seen[m] {
				t.Fatalf("MAC %s handed out twice", m)
			}
			seen[m] = true
		}
	}
	if got, want := mac(b, "sys-0"), DefaultProfile(2).NICs[0].MAC; got != want {
		t.Errorf("offset simulator's sys-0 eno1 = %s, want profile 2's %s", got, want)
	}
}
