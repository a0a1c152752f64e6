package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// lookup asks Ironic for the node with this system's MACs. Ironic answers
// only while the node waits for an agent; the first lookup of a boot gets
// the agent token.
func (a *Agent) lookup(b *boot) error {
	q := url.Values{"addresses": {strings.Join(a.m.MACs(), ",")}}
	var out struct {
		Node struct {
			UUID string `json:"uuid"`
		} `json:"node"`
		Config struct {
			HeartbeatTimeout float64 `json:"heartbeat_timeout"`
			AgentToken       string  `json:"agent_token"`
		} `json:"config"`
	}
	if err := a.ironic(b, http.MethodGet, "/v1/lookup?"+q.Encode(), nil, &out); err != nil {
		a.mu.Lock()
		if a.current(b) {
			a.rec.Lookups++
		}
		a.mu.Unlock()
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.current(b) {
		return context.Canceled
	}
	a.rec.Lookups++
	b.node = out.Node.UUID
	b.timeout = out.Config.HeartbeatTimeout
	b.token = out.Config.AgentToken
	a.rec.NodeUUID = b.node
	a.rec.HeartbeatTimeout = b.timeout
	if b.token == "" || b.token == "******" {
		a.rec.event("lookup found node %s but Ironic gave no usable token (%q)", b.node, b.token)
	} else {
		a.rec.event("lookup found node %s; got an agent token", b.node)
	}
	return nil
}

func (a *Agent) heartbeat(b *boot) error {
	a.mu.Lock()
	node, token := b.node, b.token
	a.mu.Unlock()
	body := map[string]string{"callback_url": a.url, "agent_version": Version, "agent_token": token}
	err := a.ironic(b, http.MethodPost, "/v1/heartbeat/"+url.PathEscape(node), body, nil)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.current(b) {
		a.rec.Heartbeats++
		if err != nil {
			a.rec.HeartbeatErrors++
			a.rec.LastHeartbeatError = err.Error()
		}
	}
	return err
}

// ironic calls the ramdisk API of the Ironic boot b was given.
func (a *Agent) ironic(b *boot, method, path string, in, out any) error {
	code, err := a.callIronic(b.ctx, b.api, apiVersion, method, path, in, out)
	if code == http.StatusNotFound {
		return fmt.Errorf("%s %s: %w", method, path, errNotFound)
	}
	return err
}

// callIronic sends in (JSON, none when nil) to path of the Ironic API at
// base, asking for microversion version, and decodes the answer into out
// (when not nil). It returns the HTTP status (0 when none came) and an
// error naming the method, path, status and Ironic's message for >= 300.
func (a *Agent) callIronic(ctx context.Context, base, version, method, path string, in, out any) (int, error) {
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return 0, err
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(base, "/")+path, body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-OpenStack-Ironic-API-Version", version)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := a.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	if out != nil {
		return resp.StatusCode, json.Unmarshal(raw, out)
	}
	return resp.StatusCode, nil
}
