// Package validators holds the provider's plan-time checks of single string
// attributes. Each reports a clear message at the attribute's path.
package validators

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// stringCheck adapts a func(value) error into a validator.String.
type stringCheck struct {
	desc  string
	check func(string) error
}

func (v stringCheck) Description(context.Context) string         { return v.desc }
func (v stringCheck) MarkdownDescription(context.Context) string { return v.desc }

func (v stringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := v.check(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(), err.Error())
	}
}

// New returns a validator.String from a description and a check.
func New(desc string, check func(string) error) validator.String {
	return stringCheck{desc: desc, check: check}
}

var microversionRE = regexp.MustCompile(`^1\.[0-9]+$`)

// Microversion accepts an Ironic API microversion such as "1.82".
func Microversion() validator.String {
	return New("an Ironic microversion such as 1.82", func(s string) error {
		if !microversionRE.MatchString(s) {
			return fmt.Errorf("%q is not an Ironic API microversion: want 1.N, such as 1.82", s)
		}
		return nil
	})
}

// Duration accepts a Go duration such as "90s" or "5m".
func Duration() validator.String {
	return New("a duration such as 90s or 5m", func(s string) error {
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration (want a number and a unit, such as 90s or 5m)", s)
		}
		if d < 0 {
			return fmt.Errorf("%q is negative", s)
		}
		return nil
	})
}

var macRE = regexp.MustCompile(`^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$`)

// MAC accepts an Ethernet MAC address written as Ironic and BMO expect it:
// six colon-separated hex pairs (not dashes, dots or longer hardware
// addresses, which Go's net.ParseMAC would take).
// datapathIDRE is an OpenFlow datapath id (16 hex digits), which Ironic
// takes as a switch_id besides a MAC.
var datapathIDRE = regexp.MustCompile(`^[0-9A-Fa-f]{16}$`)

// SwitchID checks a port's local_link_connection.switch_id as Ironic does
// (utils.validate_and_normalize_mac or validate_and_normalize_datapath_id).
func SwitchID() validator.String {
	return New("a switch MAC address (or a 16-hex-digit OpenFlow datapath id)", func(s string) error {
		if macRE.MatchString(s) || datapathIDRE.MatchString(s) {
			return nil
		}
		return fmt.Errorf("%q is not a switch id: Ironic wants the switch's MAC address, such as 52:54:00:12:34:56 "+
			"(or an OpenFlow datapath id of 16 hex digits)", s)
	})
}

func MAC() validator.String {
	return New("a MAC address such as 52:54:00:12:34:56", func(s string) error {
		if !macRE.MatchString(s) {
			return fmt.Errorf("%q is not a MAC address: want six colon-separated hex pairs, such as 52:54:00:12:34:56", s)
		}
		return nil
	})
}
