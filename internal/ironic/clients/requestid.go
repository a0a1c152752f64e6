package clients

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
)

// RequestIDHeaders are the headers Ironic names each request with
// ("req-<uuid>"); its API log names the same id on every line about the
// request. oslo.middleware's is X-OpenStack-Request-Id; Ironic 21.4
// answers with OpenStack-Request-Id (seen on the rig).
var RequestIDHeaders = []string{"X-OpenStack-Request-Id", "OpenStack-Request-Id"}

// RequestID is the request id of an Ironic response ("" for none).
func RequestID(h http.Header) string {
	for _, k := range RequestIDHeaders {
		if id := h.Get(k); id != "" {
			return id
		}
	}
	return ""
}

// maxErrorBody is how much of an error response is kept when its request
// id is added.
const maxErrorBody = 1 << 20

// withRequestID makes an Ironic error response name its request id: every
// error the provider reports from Ironic carries "(request req-...)", to
// find in Ironic's logs. It is the one place all of them pass: gophercloud
// builds its errors (ErrUnexpectedResponseCode) from the body, whether the
// provider shows Ironic's faultstring or gophercloud's whole message. The
// id goes at the end of the faultstring (inside error_message, as Ironic
// nests it), else of error_message, else of the body. A response without
// the header is left alone.
func withRequestID(resp *http.Response) {
	id := RequestID(resp.Header)
	if resp.StatusCode < http.StatusBadRequest || id == "" || resp.Body == nil {
		return
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	if err != nil {
		body = append(body, []byte(" (reading the body: "+err.Error()+")")...)
	}
	body = bodyWithRequestID(body, id)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
}

// bodyWithRequestID is the error body with " (request id)" added where
// the provider's messages show it.
func bodyWithRequestID(body []byte, id string) []byte {
	suffix := " (request " + id + ")"
	var outer map[string]any
	if json.Unmarshal(body, &outer) == nil {
		if msg, ok := outer["error_message"].(string); ok {
			var inner map[string]any
			if json.Unmarshal([]byte(msg), &inner) == nil {
				if fs, ok := inner["faultstring"].(string); ok {
					inner["faultstring"] = fs + suffix
					if b, err := json.Marshal(inner); err == nil {
						msg = string(b)
						suffix = ""
					}
				}
			}
			outer["error_message"] = msg + suffix
			if b, err := json.Marshal(outer); err == nil {
				return b
			}
		}
	}
	return append(bytes.TrimRight(body, " \r\n"), suffix...)
}
