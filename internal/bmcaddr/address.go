// Package bmcaddr parses BMC addresses (BMO's pkg/hardwareutils/bmc) into the Ironic driver,
// interfaces and driver_info they imply. It imports no BMC client library, so
// the Terraform layer can validate addresses without pulling in gofish.
package bmcaddr

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Ironic interface values used by the address schemes (BMO's
// pkg/hardwareutils/bmc).
const (
	ifaceIPXE               = "ipxe"
	ifaceNoRAID             = "no-raid"
	ifaceRedfish            = "redfish"
	ifaceRedfishVirtual     = "redfish-virtual-media"
	ifaceRedfishHTTPS       = "redfish-https"
	ifaceIDRACRedfish       = "idrac-redfish"
	ifaceIDRACVirtualMedia  = "idrac-redfish-virtual-media"
	driverIPMI              = "ipmi"
	driverRedfish           = "redfish"
	driverIDRAC             = "idrac"
	driverILO               = "ilo"
	driverILO5              = "ilo5"
	driverIRMC              = "irmc"
	ipmiDefaultPort         = "623"
	ipmiDefaultPrivilege    = "ADMINISTRATOR"
	redfishDefaultTransport = "https"
)

// Ironic node fields for the hardware interfaces, the keys of
// AccessDetails.Interfaces and lifecycle.BMCAccess.Interfaces.
const (
	BootInterfaceField       = "boot_interface"
	BIOSInterfaceField       = "bios_interface"
	ManagementInterfaceField = "management_interface"
	PowerInterfaceField      = "power_interface"
	VendorInterfaceField     = "vendor_interface"
	RAIDInterfaceField       = "raid_interface"
	FirmwareInterfaceField   = "firmware_interface"
)

// profile is what one address scheme implies (one row of the table in
// bmo-behaviour.md section 3). An empty interface means Ironic's default.
type profile struct {
	driver                                      string
	boot, bios, management, power, vendor, raid string
	firmware, fastInspect                       string
	redfish, secureBoot, virtualMedia, needsMAC bool
	// keyPrefix is the driver_info prefix of a vendor driver that is
	// neither Redfish nor IPMI ("ilo", "irmc"): PREFIX_address,
	// PREFIX_username, PREFIX_password.
	keyPrefix string
}

func redfishProfile(boot string, virtualMedia bool) profile {
	return profile{
		driver: driverRedfish, boot: boot, raid: ifaceRedfish,
		firmware: ifaceRedfish, fastInspect: ifaceRedfish,
		redfish: true, secureBoot: true, virtualMedia: virtualMedia,
	}
}

func idracProfile(boot string, virtualMedia bool) profile {
	return profile{
		driver: driverIDRAC, boot: boot,
		bios: ifaceIDRACRedfish, management: ifaceIDRACRedfish,
		power: ifaceIDRACRedfish, vendor: ifaceIDRACRedfish, raid: ifaceIDRACRedfish,
		firmware: ifaceRedfish, fastInspect: ifaceRedfish,
		redfish: true, secureBoot: true, virtualMedia: virtualMedia,
	}
}

// profiles maps a scheme (without a +http/+https suffix) to its profile.
var profiles = map[string]profile{
	"ipmi":                 {driver: driverIPMI, boot: ifaceIPXE, raid: ifaceNoRAID},
	"libvirt":              {driver: driverIPMI, boot: ifaceIPXE, raid: ifaceNoRAID, needsMAC: true},
	"redfish":              redfishProfile(ifaceIPXE, false),
	"ilo5-redfish":         redfishProfile(ifaceIPXE, false),
	"redfish-virtualmedia": redfishProfile(ifaceRedfishVirtual, true),
	"ilo5-virtualmedia":    redfishProfile(ifaceRedfishVirtual, true),
	"redfish-uefihttp":     redfishProfile(ifaceRedfishHTTPS, true),
	"idrac-redfish":        idracProfile(ifaceIPXE, false),
	"idrac-virtualmedia":   idracProfile(ifaceIDRACVirtualMedia, true),
	// The vendor drivers BMO had (ilo4://, ilo5://, irmc://): Ironic
	// removed the ilo, ilo5 and irmc hardware types after 2025.2, so they
	// are refused at plan where Ironic lacks them (HardwareTypeNeed).
	"ilo4": {driver: driverILO, boot: "ilo-ipxe", raid: ifaceNoRAID, keyPrefix: "ilo"},
	"ilo5": {driver: driverILO5, boot: "ilo-ipxe", raid: "ilo5", keyPrefix: "ilo"},
	"irmc": {driver: driverIRMC, boot: ifaceIPXE, raid: ifaceNoRAID, keyPrefix: "irmc"},
}

// schemeOrder is the order schemes are listed in messages.
var schemeOrder = []string{
	"ipmi", "libvirt",
	"redfish", "redfish-virtualmedia", "redfish-uefihttp",
	"idrac-redfish", "idrac-virtualmedia",
	"ilo5-redfish", "ilo5-virtualmedia",
	"ilo4", "ilo5", "irmc",
}

// insteadOf is the scheme to use instead of one whose hardware type Ironic
// does not enable (a vendor driver not enabled, or removed from Ironic):
// generic Redfish with the same boot.
var insteadOf = map[string]string{
	"ipmi":               "redfish",
	"libvirt":            "redfish",
	"idrac-redfish":      "redfish",
	"idrac-virtualmedia": "redfish-virtualmedia",
	"ilo4":               "redfish",
	"ilo5":               "ilo5-redfish",
	"irmc":               "redfish",
}

// HardwareTypeNeed is what the address needs of Ironic: its scheme's
// hardware type and the scheme to use instead on an Ironic without it.
func (d *AccessDetails) HardwareTypeNeed() lifecycle.HardwareTypeNeed {
	need := lifecycle.HardwareTypeNeed{Scheme: d.Type, Driver: d.Driver}
	if alt, ok := insteadOf[d.Type]; ok {
		need.InsteadScheme, need.InsteadDriver = alt, profiles[alt].driver
	}
	return need
}

// ipmiPrivilegeLevels are the values Ironic accepts for ipmi_priv_level.
var ipmiPrivilegeLevels = []string{"ADMINISTRATOR", "CALLBACK", "OPERATOR", "USER"}

// dnsName is BMO's hostname check (access.go checkDNSValid).
var dnsName = regexp.MustCompile(`^(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9])\.)*([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9\-]{0,61}[A-Za-z0-9])$`)

// SupportedSchemes lists every accepted address scheme, Redfish-family
// schemes with their +http and +https variants. A bare host or host:port
// (no scheme) means ipmi.
func SupportedSchemes() []string {
	var out []string
	for _, s := range schemeOrder {
		out = append(out, s)
		if profiles[s].redfish {
			out = append(out, s+"+http", s+"+https")
		}
	}
	return out
}

// AccessDetails is a parsed BMC address: where the BMC is and what the
// scheme implies for Ironic (BMO's bmc.AccessDetails).
type AccessDetails struct {
	// Address is the address as written (it may only be shown after
	// RedactAddress, in case it carries credentials).
	Address string
	// Type is the scheme without its +http/+https suffix, in lower case:
	// "ipmi", "libvirt", "redfish", "redfish-virtualmedia", ...
	Type string
	// Transport is "http" or "https" for the Redfish family ("https"
	// unless the scheme ends in +http) and empty for ipmi and libvirt.
	Transport string
	// Host is the host name or IP address, without IPv6 brackets.
	Host string
	// Port is the port as written, or empty when the address has none.
	Port string
	// Path is the URL path as written ("" for a bare host).
	Path string
	// PrivilegeLevel is ipmi_priv_level (ipmi and libvirt only).
	PrivilegeLevel string

	// Driver is the Ironic hardware type: "ipmi", "redfish", "idrac",
	// or the vendor drivers "ilo", "ilo5" and "irmc".
	Driver string
	// Interfaces maps Ironic interface fields ("boot_interface", ...) to
	// the values the scheme sets. Interfaces left to Ironic's default for
	// the driver are absent. inspect_interface is never set here: it is
	// "agent" unless fast inspection is asked for (FastInspectInterface).
	Interfaces map[string]string
	// FastInspectInterface is the inspect_interface for fast (out-of-band)
	// inspection, or empty when the driver does not support it.
	FastInspectInterface string
	// SupportsSecureBoot reports whether UEFISecureBoot can be used.
	SupportsSecureBoot bool
	// keyPrefix is the profile's (vendor drivers' driver_info prefix).
	keyPrefix string
	// VirtualMedia is true for virtual media and UEFI HTTP boot schemes:
	// they need no provisioning network and are never held by the
	// capacity gate.
	VirtualMedia bool
	// NeedsMAC is true when a boot MAC is always required (libvirt).
	NeedsMAC bool
}

// IsRedfish reports whether the BMC speaks Redfish (every scheme except
// ipmi and libvirt).
func (d *AccessDetails) IsRedfish() bool { return d.Transport != "" }

// RequiresProvisioningNetwork reports whether the driver needs a
// provisioning network (everything that does not boot from virtual media
// or UEFI HTTP).
func (d *AccessDetails) RequiresProvisioningNetwork() bool { return !d.VirtualMedia }

// ParseAddress parses a BMC address (BMO's NewAccessDetails). A bare host
// or host:port means IPMI; IPv6 addresses must be in brackets, and a bare
// bracketed IPv6 address needs a port (as in BMO). The error never
// contains credentials: an address carrying user information is rejected
// and shown redacted.
func Parse(address string) (*AccessDetails, error) {
	if strings.TrimSpace(address) == "" {
		return nil, errors.New("BMC address is empty")
	}
	shown := Redact(address)
	if strings.ContainsAny(address, " \t\r\n") {
		return nil, fmt.Errorf("BMC address %q contains whitespace", shown)
	}

	scheme, rest, bare := splitScheme(address)
	if scheme == "" {
		return nil, fmt.Errorf("BMC address %q has an empty scheme; supported schemes: %s",
			shown, strings.Join(SupportedSchemes(), ", "))
	}
	base, transport, _ := strings.Cut(scheme, "+")
	prof, ok := profiles[base]
	if !ok || (transport != "" && (!prof.redfish || (transport != "http" && transport != "https"))) {
		return nil, fmt.Errorf("unknown BMC address scheme %q in %q; supported schemes: %s "+
			"(a bare host or host:port means ipmi)",
			scheme, shown, strings.Join(SupportedSchemes(), ", "))
	}

	authority := rest
	if i := strings.IndexAny(authority, "/?#"); i >= 0 {
		authority = authority[:i]
	}
	if strings.Contains(authority, "@") {
		return nil, fmt.Errorf("BMC address %q must not contain a username or password; "+
			"give them as credentials instead", shown)
	}
	if authority == "" {
		return nil, fmt.Errorf("BMC address %q has no host", shown)
	}
	if !strings.HasPrefix(authority, "[") && strings.Count(authority, ":") > 1 {
		return nil, fmt.Errorf("BMC address %q: an IPv6 address must be written in brackets, "+
			"e.g. [fd00::1]:623 or %s://[fd00::1]", shown, base)
	}
	if bare && strings.HasPrefix(authority, "[") && strings.HasSuffix(authority, "]") {
		return nil, fmt.Errorf("BMC address %q: a bare IPv6 address needs a port "+
			"(e.g. %s:623) or a scheme (e.g. ipmi://%s)", shown, authority, authority)
	}

	u, err := url.Parse(scheme + "://" + rest)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // url.Error repeats the whole URL
		}
		return nil, fmt.Errorf("cannot parse BMC address %q: %v", shown, err)
	}

	host := u.Hostname()
	if host == "" {
		return nil, fmt.Errorf("BMC address %q has no host", shown)
	}
	if err := checkHost(host); err != nil {
		return nil, fmt.Errorf("BMC address %q: %w", shown, err)
	}
	port := u.Port()
	if port == "" && strings.HasSuffix(u.Host, ":") {
		return nil, fmt.Errorf("BMC address %q: the port is empty", shown)
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("BMC address %q: port %q is not a number from 1 to 65535", shown, port)
		}
	}

	d := &AccessDetails{
		Address:              address,
		Type:                 base,
		Host:                 host,
		Port:                 port,
		Path:                 u.Path,
		Driver:               prof.driver,
		Interfaces:           prof.interfaces(),
		FastInspectInterface: prof.fastInspect,
		SupportsSecureBoot:   prof.secureBoot,
		VirtualMedia:         prof.virtualMedia,
		NeedsMAC:             prof.needsMAC,
		keyPrefix:            prof.keyPrefix,
	}
	if prof.redfish {
		d.Transport = transport
		if d.Transport == "" {
			d.Transport = redfishDefaultTransport
		}
	} else {
		if u.Path != "" && u.Path != "/" {
			return nil, fmt.Errorf("BMC address %q has a path (%s); %s addresses are only a host and port: "+
				"paths belong to Redfish addresses (redfish://host/redfish/v1/Systems/1)", shown, u.Path, base)
		}
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			return nil, fmt.Errorf("BMC address %q: cannot parse the query: %v", shown, err)
		}
		if prof.keyPrefix != "" {
			if u.RawQuery != "" {
				return nil, fmt.Errorf("BMC address %q has a query (%s); %s addresses are only a host and port", shown, u.RawQuery, base)
			}
			return d, nil
		}
		d.PrivilegeLevel = ipmiDefaultPrivilege
		if v, ok := q["privilegelevel"]; ok && len(v) > 0 {
			level := strings.ToUpper(v[0])
			if !inSorted(ipmiPrivilegeLevels, level) {
				return nil, fmt.Errorf("BMC address %q: privilegelevel %q is not one of %s",
					shown, v[0], strings.Join(ipmiPrivilegeLevels, ", "))
			}
			d.PrivilegeLevel = level
		}
	}
	return d, nil
}

// splitScheme returns the scheme (lower case) and the rest of the address.
// "scheme://rest" and BMO's "scheme:rest" (for a known scheme) are split;
// anything else is a bare host[:port], which means ipmi.
func splitScheme(address string) (scheme, rest string, bare bool) {
	if i := strings.Index(address, "://"); i >= 0 {
		return strings.ToLower(address[:i]), address[i+3:], false
	}
	if i := strings.Index(address, ":"); i > 0 {
		s := strings.ToLower(address[:i])
		base, _, _ := strings.Cut(s, "+")
		if _, ok := profiles[base]; ok {
			return s, address[i+1:], false
		}
	}
	return "ipmi", address, true
}

// checkHost accepts an IP address or a valid DNS name (url.Parse has
// already checked that a bracketed host is an IPv6 address).
func checkHost(host string) error {
	if net.ParseIP(host) != nil {
		return nil
	}
	if strings.Trim(host, "0123456789.") == "" {
		return fmt.Errorf("host %q is not a valid IPv4 address", host)
	}
	if len(host) > 253 || !dnsName.MatchString(host) {
		return fmt.Errorf("host %q is neither an IP address nor a valid DNS name", host)
	}
	return nil
}

func (p profile) interfaces() map[string]string {
	m := map[string]string{}
	for field, v := range map[string]string{
		BootInterfaceField:       p.boot,
		BIOSInterfaceField:       p.bios,
		ManagementInterfaceField: p.management,
		PowerInterfaceField:      p.power,
		VendorInterfaceField:     p.vendor,
		RAIDInterfaceField:       p.raid,
		FirmwareInterfaceField:   p.firmware,
	} {
		if v != "" {
			m[field] = v
		}
	}
	return m
}

// hostPort is host[:port] with IPv6 brackets.
func (d *AccessDetails) hostPort() string {
	if d.Port != "" {
		return net.JoinHostPort(d.Host, d.Port)
	}
	if strings.Contains(d.Host, ":") {
		return "[" + d.Host + "]"
	}
	return d.Host
}

// redfishSystemID is the URL path unless it is empty or the service root.
func (d *AccessDetails) redfishSystemID() string {
	trimmed := strings.Trim(d.Path, "/")
	if trimmed == "" || trimmed == "redfish/v1" {
		return ""
	}
	return d.Path
}

// DriverInfo is Ironic's driver_info for the BMC, credentials included.
func (d *AccessDetails) DriverInfo(username, password string, disableCertificateVerification bool) map[string]any {
	if d.IsRedfish() {
		info := map[string]any{
			"redfish_address":  d.Transport + "://" + d.hostPort(),
			"redfish_username": username,
			"redfish_password": password,
		}
		if id := d.redfishSystemID(); id != "" {
			info["redfish_system_id"] = id
		}
		if disableCertificateVerification {
			info["redfish_verify_ca"] = false
		}
		return info
	}
	if d.keyPrefix != "" {
		return d.vendorDriverInfo(username, password, disableCertificateVerification)
	}
	port := d.Port
	if port == "" {
		port = ipmiDefaultPort
	}
	info := map[string]any{
		"ipmi_address":    d.Host,
		"ipmi_port":       port,
		"ipmi_username":   username,
		"ipmi_password":   password,
		"ipmi_priv_level": d.PrivilegeLevel,
	}
	if disableCertificateVerification {
		info["ipmi_verify_ca"] = false
	}
	return info
}

// vendorDriverInfo is the driver_info of the ilo, ilo5 and irmc drivers
// (BMO's ilo4/ilo5/irmc access details): the port as client_port (ilo) or
// irmc_port.
func (d *AccessDetails) vendorDriverInfo(username, password string, disableCertificateVerification bool) map[string]any {
	k := d.keyPrefix
	info := map[string]any{k + "_address": d.Host, k + "_username": username, k + "_password": password}
	if d.Port != "" {
		port := "client_port"
		if k == "irmc" {
			port = "irmc_port"
		}
		info[port] = d.Port
	}
	if disableCertificateVerification {
		info[k+"_verify_ca"] = false
	}
	return info
}

// Access builds what the provisioner needs to reach the BMC.
func (d *AccessDetails) Access(username, password string, disableCertificateVerification bool) lifecycle.BMCAccess {
	ifaces := make(map[string]string, len(d.Interfaces))
	for k, v := range d.Interfaces {
		ifaces[k] = v
	}
	return lifecycle.BMCAccess{
		Address:            d.Address,
		Driver:             d.Driver,
		Interfaces:         ifaces,
		DriverInfo:         d.DriverInfo(username, password, disableCertificateVerification),
		CredentialsVersion: CredentialsVersion(d.Address, username, password, disableCertificateVerification),
		NeedsMAC:           d.NeedsMAC,
		VirtualMedia:       d.VirtualMedia,
	}
}

// RedfishEndpoint returns what a Redfish client (gofish ClientConfig.Endpoint)
// needs: the service URL ("https://host[:port]", "http://" for +http) and
// the system path from the address ("" when the address names none; the
// caller then uses the only member of /redfish/v1/Systems, as Ironic does).
// It fails for ipmi and libvirt addresses.
func (d *AccessDetails) RedfishEndpoint() (baseURL, systemID string, err error) {
	if !d.IsRedfish() {
		return "", "", fmt.Errorf("BMC address %q (%s) does not speak Redfish", Redact(d.Address), d.Type)
	}
	return d.Transport + "://" + d.hostPort(), d.redfishSystemID(), nil
}

// RedfishEndpoint parses address and returns its Redfish service URL and
// system path; see AccessDetails.RedfishEndpoint.
func RedfishEndpoint(address string) (baseURL, systemID string, err error) {
	d, err := Parse(address)
	if err != nil {
		return "", "", err
	}
	return d.RedfishEndpoint()
}

// CredentialsVersion is a hex SHA-256 over the address, the credentials and
// the certificate flag: it changes whenever any of them changes and never
// reveals the password.
func CredentialsVersion(address, username, password string, disableCertificateVerification bool) string {
	h := sha256.New()
	for _, s := range []string{address, username, password, strconv.FormatBool(disableCertificateVerification)} {
		// Length-prefix each part so that no two inputs collide.
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// RedactAddress hides the user information of an address (anything before
// an "@" in its authority), for messages.
func Redact(address string) string {
	start := 0
	if i := strings.Index(address, "://"); i >= 0 {
		start = i + 3
	}
	end := len(address)
	if i := strings.IndexAny(address[start:], "/?#"); i >= 0 {
		end = start + i
	}
	if at := strings.LastIndex(address[start:end], "@"); at >= 0 {
		return address[:start] + "REDACTED@" + address[start+at+1:]
	}
	return address
}

func inSorted(list []string, s string) bool {
	i := sort.SearchStrings(list, s)
	return i < len(list) && list[i] == s
}

// InspectionModes are the values of baremetal_host's inspection, as
// strings (lifecycle.InspectionModes).
var InspectionModes = func() []string {
	out := make([]string, len(lifecycle.InspectionModes))
	for i, m := range lifecycle.InspectionModes {
		out[i] = string(m)
	}
	return out
}()

// InspectInterface is the inspect interface BMO picks for the address's
// driver in the inspection mode ("enabled", "out-of-band", "disabled"), or
// "" when the driver cannot inspect in that mode.
func (d *AccessDetails) InspectInterface(mode string) string {
	ifaces, err := lifecycle.InspectInterfaces(d.Driver, lifecycle.InspectionMode(mode))
	if err != nil || len(ifaces) == 0 {
		return ""
	}
	return ifaces[0]
}

// IsCredentialKey reports whether a driver_info key holds a credential
// (a user name or a password).
func IsCredentialKey(key string) bool {
	return strings.HasSuffix(key, "_username") || strings.HasSuffix(key, "_password")
}
