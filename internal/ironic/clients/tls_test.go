package clients

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// This file tests the TLS settings: server verification, client
// certificates, and the CA and verify settings of clouds.yaml.

func ctPEM(typ string, der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

// ctNewCA makes a self-signed CA valid for an hour either side of now:
// its key and its certificate (DER).
func ctNewCA(t *testing.T, serial int64, name string) (*ecdsa.PrivateKey, []byte) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return key, der
}

func TestTLSServerVerification(t *testing.T) {
	srv := httptest.NewTLSServer(&ctIronic{max: "1.82"})
	defer srv.Close()
	caPEM := ctPEM("CERTIFICATE", srv.Certificate().Raw)

	cfg := ctConfig(srv.URL)
	cfg.CACertPEM = caPEM
	if _, err := Connect(context.Background(), cfg); err != nil {
		t.Fatalf("with CA PEM: %v", err)
	}

	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, []byte(caPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg = ctConfig(srv.URL)
	cfg.CACertFile = caFile
	if _, err := Connect(context.Background(), cfg); err != nil {
		t.Fatalf("with CA file: %v", err)
	}

	// No CA: verification fails, and nothing falls back to insecure.
	cfg = ctConfig(srv.URL)
	_, err := Connect(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "x509") || !strings.Contains(err.Error(), "TLS verification failed") {
		t.Fatalf("without CA: %v", err)
	}
	cfg.APIWaitTimeout = time.Hour // a certificate error is not waited on
	if _, err := Connect(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "x509") {
		t.Fatalf("without CA, waiting: %v", err)
	}

	cfg = ctConfig(srv.URL)
	cfg.Insecure = true
	if _, err := Connect(context.Background(), cfg); err != nil {
		t.Fatalf("insecure: %v", err)
	}

	cfg = ctConfig(srv.URL)
	cfg.CACertPEM = "not a certificate"
	if _, err := Connect(context.Background(), cfg); err == nil {
		t.Fatal("garbage CA accepted")
	}
}

func TestTLSClientCertificate(t *testing.T) {
	// A CA that signs the client certificate.
	caKey, caDER := ctNewCA(t, 1, "test client CA")
	caCert, _ := x509.ParseCertificate(caDER)
	clKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	clTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "terraform"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	}
	clDER, err := x509.CreateCertificate(rand.Reader, clTmpl, caCert, &clKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(clKey)
	pool := x509.NewCertPool()
	pool.AddCert(caCert)

	var sawCN atomic.Value
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			sawCN.Store(r.TLS.PeerCertificates[0].Subject.CommonName)
		}
		(&ctIronic{max: "1.82"}).ServeHTTP(w, r)
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	srv.StartTLS()
	defer srv.Close()
	serverCA := ctPEM("CERTIFICATE", srv.Certificate().Raw)

	cfg := ctConfig(srv.URL)
	cfg.CACertPEM = serverCA
	cfg.ClientCertPEM = ctPEM("CERTIFICATE", clDER)
	cfg.ClientKeyPEM = ctPEM("EC PRIVATE KEY", keyDER)
	if _, err := Connect(context.Background(), cfg); err != nil {
		t.Fatalf("with client cert: %v", err)
	}
	if sawCN.Load() != "terraform" {
		t.Fatalf("server saw client CN %v", sawCN.Load())
	}

	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	_ = os.WriteFile(certFile, []byte(cfg.ClientCertPEM), 0o600)
	_ = os.WriteFile(keyFile, []byte(cfg.ClientKeyPEM), 0o600)
	fcfg := ctConfig(srv.URL)
	fcfg.CACertPEM = serverCA
	fcfg.ClientCertFile, fcfg.ClientKeyFile = certFile, keyFile
	if _, err := Connect(context.Background(), fcfg); err != nil {
		t.Fatalf("with client cert files: %v", err)
	}

	nocert := ctConfig(srv.URL)
	nocert.CACertPEM = serverCA
	if _, err := Connect(context.Background(), nocert); err == nil {
		t.Fatal("server requiring a client cert accepted a client without one")
	}
	half := nocert
	half.ClientCertPEM = cfg.ClientCertPEM
	if _, err := Connect(context.Background(), half); err == nil || !strings.Contains(err.Error(), "key is missing") {
		t.Fatalf("cert without key: %v", err)
	}
	bad := half
	bad.ClientKeyPEM = "-----BEGIN EC PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END EC PRIVATE KEY-----\n"
	if _, err := Connect(context.Background(), bad); err == nil || strings.Contains(err.Error(), "c2VjcmV0") {
		t.Fatalf("bad key: %v", err)
	}
}

func TestCloudsYAMLTLS(t *testing.T) {
	ctCloudsEnv(t)
	const token = "gAAAAAB-tls-token"
	k := newCtKeystone(t, token, true)
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	caPEM := ctPEM("CERTIFICATE", k.Keystone.Certificate().Raw)
	if err := os.WriteFile(caFile, []byte(caPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	cloud := func(extra string) string {
		return ctWriteClouds(t, fmt.Sprintf(`clouds:
  tls:
    auth:
      auth_url: %s/v3/
      username: admin
      password: pw
      project_name: admin
      user_domain_name: Default
%s`, k.Keystone.URL, extra))
	}
	connect := func(cfg Config) error {
		_, err := Connect(context.Background(), cfg)
		return err
	}

	// No CA anywhere: verification fails, nothing falls back to insecure.
	cfg := ctConfig("")
	cfg.Cloud, cfg.CloudsFile = "tls", cloud("")
	if err := connect(cfg); err == nil || !strings.Contains(err.Error(), "x509") {
		t.Fatalf("without CA: %v", err)
	}
	// The CA of clouds.yaml.
	cfg.CloudsFile = cloud("    cacert: " + caFile + "\n")
	if err := connect(cfg); err != nil {
		t.Fatalf("clouds.yaml cacert: %v", err)
	}
	// verify: true does not turn verification off.
	cfg.CloudsFile = cloud("    verify: true\n")
	if err := connect(cfg); err == nil || !strings.Contains(err.Error(), "x509") {
		t.Fatalf("verify true: %v", err)
	}
	// verify: false in clouds.yaml, or insecure in Config.
	cfg.CloudsFile = cloud("    verify: false\n")
	if err := connect(cfg); err != nil {
		t.Fatalf("verify false: %v", err)
	}
	cfg.CloudsFile = cloud("")
	cfg.Insecure = true
	if err := connect(cfg); err != nil {
		t.Fatalf("insecure: %v", err)
	}
	// Config's CA wins over clouds.yaml's (here a wrong one).
	// (httptest servers all share one certificate: make another CA.)
	_, otherDER := ctNewCA(t, 3, "unrelated CA")
	wrongCA := filepath.Join(dir, "wrong.pem")
	if err := os.WriteFile(wrongCA, []byte(ctPEM("CERTIFICATE", otherDER)), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg = ctConfig("")
	cfg.Cloud, cfg.CloudsFile = "tls", cloud("    cacert: "+wrongCA+"\n")
	if err := connect(cfg); err == nil || !strings.Contains(err.Error(), "x509") {
		t.Fatalf("wrong clouds.yaml CA: %v", err)
	}
	cfg.CACertPEM = caPEM
	if err := connect(cfg); err != nil {
		t.Fatalf("Config CA over clouds.yaml CA: %v", err)
	}
}
