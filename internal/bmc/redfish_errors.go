package bmc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/stmcginnis/gofish/schemas"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tlsverify"
)

// This file is what a failure talking to a BMC becomes: a RedfishError
// of one of the Err* kinds (rejected credentials, unreachable, timeout,
// TLS, not found, a failed request), naming the BMC and what it answered,
// never the password.

// Sentinel kinds of RedfishError, for errors.Is.
var (
	ErrCredentialsRejected = errors.New("credentials rejected")
	ErrUnreachable         = errors.New("unreachable")
	ErrTimeout             = errors.New("timed out")
	ErrTLS                 = errors.New("TLS verification failed")
	ErrNotFound            = errors.New("not found")
	ErrBMC                 = errors.New("request failed")
)

// RedfishError is a failure talking to a BMC. Its text names the BMC and
// what it answered; it never contains the password.
type RedfishError struct {
	Endpoint string // scheme://host[:port], without credentials
	Op       string // what was being done, e.g. "read system sys-0"
	Kind     error  // one of the Err* sentinels
	Status   int    // HTTP status, when the BMC answered
	Detail   string // what the BMC (or the network) said
	// Messages are the BMC's messages (MessageId, resolved text,
	// arguments), when it answered with a Redfish error body.
	Messages []RedfishMessage
}

func (e *RedfishError) Error() string {
	msg := fmt.Sprintf("BMC %s: %s: %s", e.Endpoint, e.Op, e.Kind)
	if e.Status != 0 {
		msg += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap lets errors.Is match the Kind.
func (e *RedfishError) Unwrap() error { return e.Kind }

// wrap classifies err into a RedfishError.
func (c *RedfishClient) wrap(op string, err error) error {
	e := &RedfishError{Endpoint: c.endpoint, Op: op, Kind: ErrBMC}
	var rf *schemas.Error
	var netErr net.Error
	switch {
	case errors.As(err, &rf) && rf.HTTPReturnedStatusCode != 0:
		e.Status = rf.HTTPReturnedStatusCode
		// With credentials refused, the registries would be refused too.
		askBMC := e.Status != http.StatusUnauthorized && e.Status != http.StatusForbidden
		e.Messages = c.messagesOf(rf, askBMC)
		for i, m := range e.Messages {
			e.Messages[i].Message = c.redact(m.Message)
			for j, a := range m.Args {
				e.Messages[i].Args[j] = c.redact(a)
			}
		}
		e.Detail = messagesText(e.Messages)
		switch e.Status {
		case http.StatusUnauthorized:
			e.Kind = ErrCredentialsRejected
		case http.StatusForbidden:
			e.Kind = ErrCredentialsRejected
			e.Detail = strings.TrimSpace("the account lacks the privilege; " + e.Detail)
		case http.StatusNotFound:
			e.Kind = ErrNotFound
		}
	case tlsverify.Failed(err):
		e.Kind = ErrTLS
		e.Detail = "the certificate is not trusted (verify the CA, or set insecure to skip verification): " + rootCause(err)
	case errors.Is(err, syscall.ECONNREFUSED):
		e.Kind, e.Detail = ErrUnreachable, "connection refused"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		timeout := c.cfg.Timeout
		if timeout <= 0 {
			timeout = defaultRedfishTimeout
		}
		e.Kind, e.Detail = ErrTimeout, fmt.Sprintf("no answer within %s", timeout)
	case errors.Is(err, context.Canceled):
		e.Kind, e.Detail = ErrTimeout, "cancelled"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		e.Kind, e.Detail = ErrUnreachable, "connection closed without an answer"
	default:
		var dnsErr *net.DNSError
		var opErr *net.OpError
		if errors.As(err, &dnsErr) || errors.As(err, &opErr) {
			e.Kind = ErrUnreachable
		}
		e.Detail = rootCause(err)
	}
	e.Detail = c.redact(e.Detail)
	return e
}

// rootCause is the innermost error's text, without the URL wrappers.
func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// redact removes the password from text that may echo a request.
func (c *RedfishClient) redact(s string) string {
	if c.cfg.Password != "" {
		s = strings.ReplaceAll(s, c.cfg.Password, "******")
	}
	return s
}

func isStatus(err error, code int) bool {
	var rf *schemas.Error
	return errors.As(err, &rf) && rf.HTTPReturnedStatusCode == code
}
