// Package tlsverify recognises TLS certificate verification failures, which
// both the Ironic client and the Redfish client treat as permanent: waiting
// or retrying does not fix a certificate the client does not trust.
package tlsverify

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
)

// Failed reports whether err (or anything it wraps) is a certificate
// verification failure: unknown authority, wrong host name, or an invalid
// certificate.
func Failed(err error) bool {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	return errors.As(err, &unknown) || errors.As(err, &host) || errors.As(err, &invalid) || errors.As(err, &verify)
}
