package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRunPrintsURLsAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-systems", "2", "-per-system-port-base", "0"}, pw, io.Discard)
		pw.Close()
	}()

	sc := bufio.NewScanner(pr)
	var urls []string
	for len(urls) < 2 && sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "sys-") {
			urls = append(urls, strings.Fields(line)[1])
		}
	}
	if len(urls) != 2 || !strings.HasPrefix(urls[1], "redfish+http://127.0.0.1:") || !strings.HasSuffix(urls[1], "/redfish/v1/Systems/sys-1") {
		t.Fatalf("urls = %v", urls)
	}
	req, _ := http.NewRequest("GET", "http"+strings.TrimPrefix(urls[0], "redfish+http"), nil)
	req.SetBasicAuth("admin", "password")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET system = %d", resp.StatusCode)
	}

	cancel()
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not stop")
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	if err := run(context.Background(), []string{"-systems", "0"}, io.Discard, io.Discard); err == nil {
		t.Error("want an error for -systems 0")
	}
}

// TestVMOptions: -vm-forward and -vm-agent-port-base become the machines'
// forwards and each system's agent port; a bad port and -vm-dir with
// -ironic are refused, naming the flag.
func TestVMOptions(t *testing.T) {
	o, err := vmOptions("/tmp/vms", "46385, 48088", 41000, 2)
	if err != nil {
		t.Fatal(err)
	}
	if o.Dir != "/tmp/vms" || fmt.Sprint(o.Forwards) != "[46385 48088]" || o.AgentPorts["sys-0"] != 41000 || o.AgentPorts["sys-1"] != 41001 || len(o.AgentPorts) != 2 {
		t.Errorf("options %+v", o)
	}
	if _, err := vmOptions("/tmp/vms", "46385,http", 0, 1); err == nil || !strings.Contains(err.Error(), `-vm-forward: "http" is not a port`) {
		t.Errorf("bad port: %v", err)
	}
	err = run(context.Background(), []string{"-listen", "127.0.0.1:0", "-vm-dir", t.TempDir(), "-ironic", "http://127.0.0.1:6385"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-vm-dir and -ironic exclude each other") {
		t.Errorf("-vm-dir with -ironic: %v", err)
	}
}
