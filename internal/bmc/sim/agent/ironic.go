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
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(b.ctx, method, strings.TrimRight(b.api, "/")+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("X-OpenStack-Ironic-API-Version", apiVersion)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := a.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%s %s: %w", method, path, errNotFound)
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}
