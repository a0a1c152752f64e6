package ironictest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
)

func do(t *testing.T, s *Server, method, path, mv, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if mv != "" {
		req.Header.Set("X-OpenStack-Ironic-API-Version", mv)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// faultstring digs Ironic's message out of its doubly encoded error body.
func faultstring(t *testing.T, body string) string {
	t.Helper()
	var outer struct {
		ErrorMessage string `json:"error_message"`
	}
	var inner struct {
		Faultstring string `json:"faultstring"`
	}
	if json.Unmarshal([]byte(body), &outer) != nil || json.Unmarshal([]byte(outer.ErrorMessage), &inner) != nil {
		t.Fatalf("not an Ironic error body: %s", body)
	}
	return inner.Faultstring
}

func TestStatusCodes(t *testing.T) {
	s := New(t)
	id := s.AddNode(nodes.Node{Name: "n1", ProvisionState: "active", DriverInfo: map[string]any{"ipmi_password": "secret"}})

	if code, body := do(t, s, "GET", "/v1/nodes/n1", "1.99", ""); code != http.StatusNotAcceptable || !strings.Contains(faultstring(t, body), "1.99") {
		t.Errorf("microversion above max: %d %s", code, body)
	}
	if code, _ := do(t, s, "GET", "/v1/nodes/"+id+"/inventory", "1.80", ""); code != http.StatusNotAcceptable {
		t.Errorf("inventory at 1.80: %d, want 406", code)
	}
	if code, body := do(t, s, "GET", "/v1/nodes/nope", "", ""); code != http.StatusNotFound || faultstring(t, body) != "Node nope could not be found." {
		t.Errorf("missing node: %d %s", code, body)
	}
	if code, body := do(t, s, "GET", "/v1/nodes/n1", "1.82", ""); code != http.StatusOK || strings.Contains(body, "secret") {
		t.Errorf("GET node: %d, password not masked: %s", code, body)
	}
	if code, body := do(t, s, "DELETE", "/v1/nodes/n1", "", ""); code != http.StatusConflict || !strings.Contains(faultstring(t, body), "maintenance") {
		t.Errorf("deleting an active node: %d %s", code, body)
	}
	if code, body := do(t, s, "PUT", "/v1/nodes/n1/states/provision", "", `{"target":"inspect"}`); code != http.StatusBadRequest || !strings.Contains(faultstring(t, body), `while it is in state "active"`) {
		t.Errorf("invalid transition: %d %s", code, body)
	}
	if code, _ := do(t, s, "PUT", "/v1/nodes/n1/states/provision", "", `{"target":"deleted"}`); code != http.StatusAccepted {
		t.Errorf("undeploy: %d", code)
	}
	s.Settle = false
	if n, _ := s.Node("n1"); n.ProvisionState != "deleting" || n.TargetProvisionState != "available" {
		t.Errorf("undeploying node in %q -> %q", n.ProvisionState, n.TargetProvisionState)
	}
	if code, _ := do(t, s, "PUT", "/v1/nodes/n1/states/power", "", `{"target":"power on"}`); code != http.StatusConflict {
		t.Errorf("power change while undeploying: %d, want 409", code)
	}
	s.Finish("n1")
	if n, _ := s.Node("n1"); n.ProvisionState != "available" || n.PowerState != "power off" {
		t.Errorf("after Finish: %q, %q", n.ProvisionState, n.PowerState)
	}

	s.NodeLocked("PATCH", "", 1)
	patch := `[{"op":"add","path":"/extra/labels","value":{"a":"b"}},{"op":"replace","path":"/automated_clean","value":false}]`
	if code, body := do(t, s, "PATCH", "/v1/nodes/n1", "", patch); code != http.StatusConflict || !strings.Contains(faultstring(t, body), "is locked") {
		t.Errorf("NodeLocked fault: %d %s", code, body)
	}
	if code, body := do(t, s, "PATCH", "/v1/nodes/n1", "", patch); code != http.StatusOK {
		t.Errorf("patch: %d %s", code, body)
	}
	n := s.MustNode(id)
	if n.Extra["labels"] == nil || n.AutomatedClean == nil || *n.AutomatedClean {
		t.Errorf("patched node: extra %v, automated_clean %v", n.Extra, n.AutomatedClean)
	}
	if code, _ := do(t, s, "PATCH", "/v1/nodes/n1", "", `[{"op":"remove","path":"/instance_info/nothing"}]`); code != http.StatusBadRequest {
		t.Errorf("removing a missing field: %d, want 400", code)
	}
	if code, _ := do(t, s, "DELETE", "/v1/nodes/n1", "", ""); code != http.StatusNoContent || s.NodeCount() != 0 {
		t.Errorf("delete available node: %d", code)
	}
	want := []string{"DELETE /nodes/n1", "PUT /nodes/n1/states/provision", "PUT /nodes/n1/states/provision",
		"PUT /nodes/n1/states/power", "PATCH /nodes/n1", "PATCH /nodes/n1", "PATCH /nodes/n1", "DELETE /nodes/n1"}
	if got := s.Calls(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("calls %q", got)
	}
}

// Routes added by other tests get the same plumbing.
func TestHandleFunc(t *testing.T) {
	s := New(t)
	s.HandleFunc("GET /v1/nodes/{id}/vendor_passthru", s.withNode(func(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
		WriteJSON(w, http.StatusOK, map[string]any{"node": n.UUID})
	}))
	id := s.AddNode(nodes.Node{Name: "n"})
	if code, body := do(t, s, "GET", "/v1/nodes/n/vendor_passthru", "", ""); code != http.StatusOK || !strings.Contains(body, id) {
		t.Fatalf("%d %s", code, body)
	}
	if s.Count("GET", "/vendor_passthru") != 1 {
		t.Fatal("the added route is not in the request log")
	}
}
