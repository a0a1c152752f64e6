package validators

import (
	_ "embed"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Ironic's logical names (nodes, allocations): RFC 3986 unreserved
// characters, at most 255 (ironic/common/utils.py is_valid_logical_name).
var logicalNameRE = regexp.MustCompile(`^[A-Za-z0-9._~-]{1,255}$`)

var uuidRE = regexp.MustCompile(`^(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)

// LogicalName checks a name as Ironic checks node and allocation names:
// letters, digits and -._~ only, at most 255 characters, and not a UUID
// (Ironic would read it as one).
func LogicalName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("the name is empty")
	case len(s) > 255:
		return fmt.Errorf("%q is %d characters long; Ironic allows at most 255", s, len(s))
	case !logicalNameRE.MatchString(s):
		return fmt.Errorf("%q has characters Ironic refuses in a name: use only letters, digits and - . _ ~", s)
	case uuidRE.MatchString(s):
		return fmt.Errorf("%q looks like a UUID, which Ironic refuses as a name", s)
	}
	return nil
}

// Name accepts an Ironic node or allocation name (see LogicalName).
func Name() validator.String {
	return New("an Ironic name: letters, digits and -._~, not a UUID", LogicalName)
}

//go:embed standard_traits.txt
var standardTraitsFile string

var standardTraits = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(standardTraitsFile, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			m[l] = true
		}
	}
	return m
}()

var customTraitRE = regexp.MustCompile(`^CUSTOM_[A-Z0-9_]+$`)

// CheckTrait accepts what Ironic accepts as a trait: a standard trait of
// the os-traits library, or CUSTOM_ followed by upper-case letters, digits
// and underscores; at most 255 characters.
func CheckTrait(s string) error {
	switch {
	case len(s) > 255:
		return fmt.Errorf("trait %q is longer than 255 characters", s)
	case standardTraits[s] || customTraitRE.MatchString(s):
		return nil
	case strings.HasPrefix(strings.ToUpper(s), "CUSTOM_"):
		return fmt.Errorf("trait %q: a custom trait is CUSTOM_ followed by upper-case letters, digits and _ only, such as %q",
			s, "CUSTOM_"+strings.Map(traitChar, strings.ToUpper(s[len("CUSTOM_"):])))
	case standardTraits[strings.ToUpper(s)]:
		return fmt.Errorf("trait %q: standard traits are upper case: %q", s, strings.ToUpper(s))
	}
	return fmt.Errorf("trait %q is neither a standard trait (os-traits, such as HW_CPU_X86_AVX2) nor a custom one (CUSTOM_ and upper-case letters, digits, _, such as CUSTOM_GPU)", s)
}

func traitChar(r rune) rune {
	if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
		return r
	}
	return '_'
}

// Trait accepts an Ironic trait (see CheckTrait).
func Trait() validator.String {
	return New("a standard trait or CUSTOM_ in upper case", CheckTrait)
}

// ResourceClass accepts an Ironic resource class: not empty, at most 80
// characters (Ironic's limit).
func ResourceClass() validator.String {
	return New("an Ironic resource class", func(s string) error {
		switch {
		case strings.TrimSpace(s) == "":
			return fmt.Errorf("the resource class is empty; leave it unset or name one, such as \"baremetal\"")
		case len(s) > 80:
			return fmt.Errorf("resource class %q is %d characters long; Ironic allows at most 80", s, len(s))
		}
		return nil
	})
}

var (
	labelNameRE   = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	dnsSubdomainR = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// CheckLabelKey accepts a Kubernetes label key: an optional DNS subdomain
// prefix and a slash, then a name of at most 63 characters that starts and
// ends with a letter or digit, with - _ . between.
func CheckLabelKey(k string) error {
	prefix, name, hasPrefix := strings.Cut(k, "/")
	if !hasPrefix {
		name, prefix = prefix, ""
	}
	switch {
	case k == "":
		return fmt.Errorf("the label key is empty")
	case hasPrefix && (prefix == "" || len(prefix) > 253 || !dnsSubdomainR.MatchString(prefix)):
		return fmt.Errorf("label key %q: the prefix %q must be a lower-case DNS subdomain such as example.com", k, prefix)
	case len(name) > 63:
		return fmt.Errorf("label key %q: the name part is %d characters long; at most 63", k, len(name))
	case !labelNameRE.MatchString(name):
		return fmt.Errorf("label key %q is not a valid Kubernetes label key: the name must start and end with a letter or digit, with only - _ . between (e.g. topology.kubernetes.io/zone)", k)
	}
	return nil
}

// LabelKey accepts a Kubernetes label key (see CheckLabelKey).
func LabelKey() validator.String {
	return New("a Kubernetes label key", CheckLabelKey)
}

var hctlRE = regexp.MustCompile(`^[0-9]+:[0-9]+:[0-9]+:[0-9]+$`)

// HCTL accepts a SCSI address host:channel:target:lun.
func HCTL() validator.String {
	return New("a SCSI address h:c:t:l", func(s string) error {
		if !hctlRE.MatchString(s) {
			return fmt.Errorf("%q is not a SCSI address: want host:channel:target:lun, four numbers such as 0:0:0:0", s)
		}
		return nil
	})
}

// PositiveDuration accepts a Go duration greater than zero.
func PositiveDuration() validator.String {
	return New("a duration greater than zero, such as 30m", func(s string) error {
		d, err := time.ParseDuration(s)
		switch {
		case err != nil:
			return fmt.Errorf("%q is not a duration (want a number and a unit, such as 30m or 1h30m)", s)
		case d <= 0:
			return fmt.Errorf("%q is not greater than zero: a timeout must leave time to work, such as 30m", s)
		}
		return nil
	})
}

// IPAddress accepts an IPv4 or IPv6 address.
func IPAddress() validator.String {
	return New("an IP address", func(s string) error {
		if a, err := netip.ParseAddr(s); err != nil || a.Zone() != "" {
			return fmt.Errorf("%q is not an IP address", s)
		}
		return nil
	})
}

// IPOrPrefix accepts an address (10.0.0.5) or an address with a prefix
// length (10.0.0.5/24).
func IPOrPrefix() validator.String {
	return New("an IP address, or address/prefix", func(s string) error {
		if strings.Contains(s, "/") {
			if _, err := netip.ParsePrefix(s); err != nil {
				return fmt.Errorf("%q is not an address/prefix such as 10.0.0.5/24: %v", s, err)
			}
			return nil
		}
		if a, err := netip.ParseAddr(s); err != nil || a.Zone() != "" {
			return fmt.Errorf("%q is not an IP address (or address/prefix such as 10.0.0.5/24)", s)
		}
		return nil
	})
}

// CheckEndpoint accepts an http(s) URL with a host and no query or
// fragment, such as Ironic's http://ironic.example.com:6385.
func CheckEndpoint(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("the endpoint is not a URL: it must start with http:// or https://, such as http://ironic.example.com:6385")
	case u.User != nil:
		return fmt.Errorf("the endpoint has credentials in it; set username and password (or keystone) instead")
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q: the endpoint must start with http:// or https://, such as http://ironic.example.com:6385", s)
	case u.Hostname() == "":
		return fmt.Errorf("%q has no host", s)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("%q: an endpoint has no query or fragment", s)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%q: port %s is not a port number (1-65535)", s, p)
		}
	}
	return nil
}

// Endpoint accepts an http(s) endpoint URL (see CheckEndpoint).
func Endpoint() validator.String {
	return New("an http:// or https:// URL", CheckEndpoint)
}

var conductorGroupRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{0,255}$`)

// ConductorGroup accepts an Ironic conductor group: letters, digits and
// _ . - only, at most 255 characters.
func ConductorGroup() validator.String {
	return New("an Ironic conductor group", func(s string) error {
		if !conductorGroupRE.MatchString(s) {
			return fmt.Errorf("%q is not a conductor group Ironic accepts: letters, digits and _ . - only, at most 255 characters", s)
		}
		return nil
	})
}
