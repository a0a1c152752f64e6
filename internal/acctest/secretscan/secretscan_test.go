package secretscan

import (
	"runtime"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	texts := map[string]string{
		"the log":   "GET /v1/nodes user=admin password=hunter2 status=200",
		"the state": `{"password": "******"}`,
	}
	leaks := Find(map[string]string{"BMC password": "hunter2", "token": "gAAAAA", "nothing": ""}, texts)
	if len(leaks) != 1 {
		t.Fatalf("leaks = %+v, want one", leaks)
	}
	l := leaks[0]
	if l.What != "BMC password" || l.Where != "the log" || strings.Contains(l.Excerpt, "hunter2") ||
		!strings.Contains(l.Excerpt, "password=<BMC password> status") {
		t.Errorf("leak = %+v", l)
	}
	if !strings.Contains(l.String(), "the BMC password appears in the log") {
		t.Errorf("String() = %q", l)
	}
	if err := Err(map[string]string{"token": "gAAAAA"}, texts); err != nil {
		t.Errorf("Err = %v, want nil", err)
	}
	if err := Err(map[string]string{"BMC password": "hunter2"}, texts); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Err = %v, want the leak without the secret", err)
	}
}

// Each leak fails the test; a text without its markers stops it.
func TestCheckAndCaptured(t *testing.T) {
	var rec recorder
	Check(&rec, map[string]string{"a": "x", "b": "y"}, map[string]string{"out": "x y"})
	if rec.errors != 2 || rec.fatal {
		t.Errorf("Check: %d errors, fatal %v; want 2 errors", rec.errors, rec.fatal)
	}
	rec = recorder{}
	Captured(&rec, "the log", "Ironic API request", "Ironic API request")
	if rec.errors != 0 || rec.fatal {
		t.Errorf("Captured with its marker failed")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Captured(&rec, "the log", "", "Ironic API request")
	}()
	<-done
	if !rec.fatal {
		t.Errorf("Captured without its marker did not stop the test")
	}
}

// recorder is a testing.TB that counts failures; Fatal ends the goroutine
// as testing does.
type recorder struct {
	testing.TB
	errors int
	fatal  bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Error(...any)          { r.errors++ }
func (r *recorder) Fatalf(string, ...any) { r.fatal = true; runtime.Goexit() }
