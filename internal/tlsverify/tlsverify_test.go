package tlsverify

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestFailed(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain", errors.New("connection refused"), false},
		{"unknown authority", x509.UnknownAuthorityError{}, true},
		{"host name", x509.HostnameError{}, true},
		{"invalid", x509.CertificateInvalidError{}, true},
		{"verification", &tls.CertificateVerificationError{}, true},
		{"wrapped", fmt.Errorf("get: %w", x509.UnknownAuthorityError{}), true},
	} {
		if got := Failed(tc.err); got != tc.want {
			t.Errorf("%s: Failed(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// A real handshake against a self-signed server fails in a way Failed
// recognises (what the HTTP clients actually return, not a hand-built error).
func TestFailedRealHandshake(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	resp, err := (&http.Client{}).Get(srv.URL)
	if err == nil {
		resp.Body.Close()
	}
	if err == nil || !Failed(err) {
		t.Fatalf("GET with an untrusted certificate: err = %v, want a verification failure", err)
	}
}
