package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A stalled node ends Converge at once with an error that names the host,
// its state, how long nothing happened, that no conductor holds it, and what
// to do; it is not retried as a transient error would be.
func TestConvergeStopsOnStall(t *testing.T) {
	e := newEnv()
	h := newHost(StateRegistering)
	h.Spec.Name = "rack1-node4"
	stall := &StallError{ProvisionState: "verifying", Idle: 200 * time.Second, Limit: 3 * time.Minute}
	e.prov.on("Register",
		provReply{res: Result{Dirty: true, RequeueAfter: 3 * time.Second, Verb: "manage", ProvisionState: "verifying"}, id: "node-1"},
		provReply{err: fmt.Errorf("wrapped: %w", stall), res: Result{Verb: "manage", ProvisionState: "verifying"}, id: "node-1"})
	err := e.m.Converge(context.Background(), h, ConvergeOptions{Retries: 5})
	var he *HostError
	var se *StallError
	if !errors.As(err, &he) || !errors.As(err, &se) {
		t.Fatalf("err = %v, want a HostError wrapping a StallError", err)
	}
	if n := len(e.prov.callsTo("Register")); n != 2 {
		t.Errorf("%d Register calls, want 2: a stall is not retried", n)
	}
	msg := err.Error()
	for _, want := range []string{`host "rack1-node4"`, `state "registering"`, `"verifying"`, "3m20s",
		"stall_timeout 3m0s", "no Ironic conductor holds a lock", "Ironic conductor's log", "restarting the conductor", "terraform apply again"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	// An ordinary transient error in the same place is still retried.
	e = newEnv()
	h = newHost(StateRegistering)
	e.prov.on("Register", provReply{err: errors.New("connection refused")})
	if err := e.m.Converge(context.Background(), h, ConvergeOptions{}); err != nil {
		t.Fatalf("transient error not retried: %v", err)
	}
}
