// Package secretscan looks for secrets in what a test captured: logs,
// Terraform's output, state, error messages. Every leak test scans through
// it. It needs nothing but the standard library, so that any test package
// can use it, internal/ironic/clients's own tests included (they cannot
// import internal/acctest, which imports that package).
package secretscan

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Leak is one secret found in one text.
type Leak struct {
	// What names the secret, Where the text.
	What, Where string
	// Excerpt is the text around the secret, the secret itself replaced
	// by <What>, so that the report does not leak it again.
	Excerpt string
}

func (l Leak) String() string {
	return fmt.Sprintf("the %s appears in %s: ...%s...", l.What, l.Where, l.Excerpt)
}

// Find returns every place where one of secrets (what it is -> its
// value) appears in one of texts (where -> text), sorted by where and
// what. An empty secret is never found.
func Find(secrets, texts map[string]string) []Leak {
	var leaks []Leak
	for what, s := range secrets {
		if s == "" {
			continue
		}
		for where, text := range texts {
			if i := strings.Index(text, s); i >= 0 {
				excerpt := text[max(0, i-300):min(len(text), i+len(s)+100)]
				leaks = append(leaks, Leak{What: what, Where: where, Excerpt: strings.ReplaceAll(excerpt, s, "<"+what+">")})
			}
		}
	}
	slices.SortFunc(leaks, func(a, b Leak) int {
		return strings.Compare(a.Where+"\x00"+a.What, b.Where+"\x00"+b.What)
	})
	return leaks
}

// Err is Find as an error (nil when nothing leaked), for check functions
// that return one.
func Err(secrets, texts map[string]string) error {
	leaks := Find(secrets, texts)
	if len(leaks) == 0 {
		return nil
	}
	msgs := make([]string, len(leaks))
	for i, l := range leaks {
		msgs[i] = l.String()
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}

// Check fails t once for every leak Find reports.
func Check(t testing.TB, secrets, texts map[string]string) {
	t.Helper()
	for _, l := range Find(secrets, texts) {
		t.Error(l.String())
	}
}

// Captured stops the test unless text (named where) holds every marker:
// a log that lacks what the code under test writes there was not
// captured, and its silence about secrets proves nothing.
func Captured(t testing.TB, where, text string, markers ...string) {
	t.Helper()
	for _, m := range markers {
		if !strings.Contains(text, m) {
			t.Fatalf("%s (%d bytes) has no %q: it was not captured, so finding no secret in it proves nothing:\n%s", where, len(text), m, text)
		}
	}
}
