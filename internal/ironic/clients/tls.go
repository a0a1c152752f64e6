package clients

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// This file is the TLS configuration of the connections to Ironic and
// keystone: the CA, the client certificate and Insecure of Config, and
// what clouds.yaml adds to them.

// buildTLSConfig makes the TLS configuration from CA, client certificate and
// Insecure. Without a CA the system roots verify the server; verification
// is only skipped when Insecure is set explicitly.
func buildTLSConfig(cfg Config) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}

	var caPEM []byte
	if cfg.CACertFile != "" {
		b, err := os.ReadFile(cfg.CACertFile)
		if err != nil {
			return nil, fmt.Errorf("reading CA certificate file: %w", err)
		}
		caPEM = append(caPEM, b...)
		caPEM = append(caPEM, '\n')
	}
	if cfg.CACertPEM != "" {
		caPEM = append(caPEM, []byte(cfg.CACertPEM)...)
	}
	if len(caPEM) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caPEM) {
			return nil, errors.New("the CA certificate (ca_cert) holds no PEM certificate")
		}
		tc.RootCAs = pool
	}

	certPEM, keyPEM := []byte(cfg.ClientCertPEM), []byte(cfg.ClientKeyPEM)
	if cfg.ClientCertFile != "" {
		b, err := os.ReadFile(cfg.ClientCertFile)
		if err != nil {
			return nil, fmt.Errorf("reading client certificate file: %w", err)
		}
		certPEM = b
	}
	if cfg.ClientKeyFile != "" {
		b, err := os.ReadFile(cfg.ClientKeyFile)
		if err != nil {
			return nil, fmt.Errorf("reading client key file: %w", err)
		}
		keyPEM = b
	}
	switch {
	case len(certPEM) > 0 && len(keyPEM) > 0:
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			// Do not wrap: the key material must not reach messages.
			return nil, errors.New("the client certificate and key do not form a valid pair")
		}
		tc.Certificates = []tls.Certificate{cert}
	case len(certPEM) > 0:
		return nil, errors.New("a client certificate is set but its key is missing")
	case len(keyPEM) > 0:
		return nil, errors.New("a client key is set but its certificate is missing")
	}

	tc.InsecureSkipVerify = cfg.Insecure
	return tc, nil
}

// mergeCloudTLS completes tc (from Config, which wins) with the TLS settings
// of clouds.yaml: its CA and client certificate when Config sets none, and
// skipped verification when clouds.yaml says verify: false.
func mergeCloudTLS(tc, cloud *tls.Config) {
	if cloud == nil {
		return
	}
	if tc.RootCAs == nil {
		tc.RootCAs = cloud.RootCAs
	}
	if len(tc.Certificates) == 0 {
		tc.Certificates = cloud.Certificates
	}
	tc.InsecureSkipVerify = tc.InsecureSkipVerify || cloud.InsecureSkipVerify
}
