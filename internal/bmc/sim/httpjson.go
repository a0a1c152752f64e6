package sim

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math/big"
	"net"
	"net/http"
	"time"
)

// writeJSON answers with v as JSON and a weak ETag of the body, with its
// links spelled as the request's dialect spells them.
func writeJSON(w http.ResponseWriter, r *http.Request, code int, v any) {
	if dialectOf(r) == DialectILO {
		v = iloLinks(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := fnv.New64a()
	_, _ = h.Write(b)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("ETag", fmt.Sprintf(`W/"%x"`, h.Sum64()))
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b)
	}
}

// writeError answers with a Redfish error body in the dialect of the
// system addressed (see dialectWriter).
func writeError(w http.ResponseWriter, code int, messageID, msg string) {
	writeErrorArgs(w, code, messageID, msg)
}

// writeErrorArgs is writeError with the message's MessageArgs (all an
// iLO-dialect body carries besides the MessageId).
func writeErrorArgs(w http.ResponseWriter, code int, messageID, msg string, args ...string) {
	b, _ := json.Marshal(errorBody(dialectOfWriter(w), messageID, msg, args))
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

// readJSON decodes the request body into v, answering 400 on failure.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err == nil && len(b) == 0 {
		return true
	}
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "Base.1.8.MalformedJSON", "malformed JSON body: "+err.Error())
		return false
	}
	return true
}

func link(uri string) map[string]any { return map[string]any{"@odata.id": uri} }

func links(uris ...string) []map[string]any {
	out := make([]map[string]any, 0, len(uris))
	for _, u := range uris {
		out = append(out, link(u))
	}
	return out
}

func status() map[string]any { return map[string]any{"State": "Enabled", "Health": "OK"} }

// writeService answers with the Redfish service resource v1/{id} (the
// session, update and task services): enabled and healthy, of schema
// version version, with the service's own properties in props.
func writeService(w http.ResponseWriter, r *http.Request, id, version, name string, props map[string]any) {
	body := map[string]any{
		"@odata.id":      v1 + "/" + id,
		"@odata.type":    "#" + id + "." + version + "." + id,
		"Id":             id,
		"Name":           name,
		"ServiceEnabled": true,
		"Status":         status(),
	}
	maps.Copy(body, props)
	writeJSON(w, r, http.StatusOK, body)
}

func writeCollection(w http.ResponseWriter, r *http.Request, uri, odataType, name string, members []string) {
	writeJSON(w, r, http.StatusOK, collectionJSON(uri, odataType, name, members))
}

// selfSignedCert makes an in-memory certificate for 127.0.0.1, ::1 and
// localhost, valid for a day.
func selfSignedCert() (*tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "bmcsim", Organization: []string{"Simulated BMC"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, der, nil
}
