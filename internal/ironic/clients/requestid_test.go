package clients

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// An Ironic error body names its request id where the provider's messages
// show it: Ironic's nested faultstring, else error_message, else the body.
func TestBodyWithRequestID(t *testing.T) {
	const id = "req-5b0c1c3e-1b8e-4c55-9b1e-6f0e8f5e2a11"
	for _, tc := range []struct{ name, body, want string }{
		{"ironic", `{"error_message": "{\"faultstring\": \"Node n1 could not be found.\", \"faultcode\": \"Client\", \"debuginfo\": null}"}`,
			`{"error_message":"{\"debuginfo\":null,\"faultcode\":\"Client\",\"faultstring\":\"Node n1 could not be found. (request ` + id + `)\"}"}`},
		{"plain error_message", `{"error_message": "Not Acceptable"}`, `{"error_message":"Not Acceptable (request ` + id + `)"}`},
		{"not JSON", "<html>502 Bad Gateway</html>\n", "<html>502 Bad Gateway</html> (request " + id + ")"},
		{"JSON without error_message", `{"message": "x"}`, `{"message": "x"} (request ` + id + `)`},
		{"empty", "", " (request " + id + ")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(bodyWithRequestID([]byte(tc.body), id)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// Only error responses with the header change; the length follows the body.
func TestWithRequestID(t *testing.T) {
	resp := func(status int, header, id string) *http.Response {
		r := &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{"error_message": "boom"}`))}
		if id != "" {
			r.Header.Set(header, id)
		}
		return r
	}
	for _, tc := range []struct {
		status     int
		header, id string
		want       string
	}{
		{409, "X-OpenStack-Request-Id", "req-1", `{"error_message":"boom (request req-1)"}`},
		{400, "Openstack-Request-Id", "req-3", `{"error_message":"boom (request req-3)"}`}, // Ironic 21.4's
		{200, "X-OpenStack-Request-Id", "req-2", `{"error_message": "boom"}`},
		{500, "", "", `{"error_message": "boom"}`},
	} {
		r := resp(tc.status, tc.header, tc.id)
		withRequestID(r)
		b, _ := io.ReadAll(r.Body)
		if string(b) != tc.want {
			t.Errorf("%d %q: body %s, want %s", tc.status, tc.id, b, tc.want)
		}
		if tc.want != `{"error_message": "boom"}` && r.ContentLength != int64(len(b)) {
			t.Errorf("%d: content length %d for %d bytes", tc.status, r.ContentLength, len(b))
		}
	}
}
