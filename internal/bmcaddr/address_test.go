package bmcaddr

import (
	"reflect"
	"strings"
	"testing"
)

// Interface sets per row of the scheme table (bmo-behaviour.md section 3).
var (
	ipmiIfaces = map[string]string{
		"boot_interface": "ipxe",
		"raid_interface": "no-raid",
	}
	redfishIfaces = func(boot string) map[string]string {
		return map[string]string{
			"boot_interface":     boot,
			"raid_interface":     "redfish",
			"firmware_interface": "redfish",
		}
	}
	idracIfaces = func(boot string) map[string]string {
		return map[string]string{
			"boot_interface":       boot,
			"bios_interface":       "idrac-redfish",
			"management_interface": "idrac-redfish",
			"power_interface":      "idrac-redfish",
			"vendor_interface":     "idrac-redfish",
			"raid_interface":       "idrac-redfish",
			"firmware_interface":   "redfish",
		}
	}
)

func TestParseAddressSchemes(t *testing.T) {
	type want struct {
		typ, transport, host, port, path, priv, driver string
		ifaces                                         map[string]string
		fastInspect                                    string
		secureBoot, virtualMedia, needsMAC             bool
	}
	ipmi := func(host, port, priv string) want {
		return want{typ: "ipmi", host: host, port: port, priv: priv, driver: "ipmi", ifaces: ipmiIfaces}
	}
	rf := func(typ, transport, host, port, path, boot string, vm bool) want {
		return want{typ: typ, transport: transport, host: host, port: port, path: path,
			driver: "redfish", ifaces: redfishIfaces(boot), fastInspect: "redfish",
			secureBoot: true, virtualMedia: vm}
	}
	idrac := func(typ, transport, boot string, vm bool) want {
		return want{typ: typ, transport: transport, host: "10.0.0.5", driver: "idrac",
			ifaces: idracIfaces(boot), fastInspect: "redfish", secureBoot: true, virtualMedia: vm}
	}
	const vmBoot, httpsBoot, idracVM = "redfish-virtual-media", "redfish-https", "idrac-redfish-virtual-media"

	for _, tc := range []struct {
		address string
		want    want
	}{
		// Bare host and host:port mean ipmi.
		{"192.168.122.1", ipmi("192.168.122.1", "", "ADMINISTRATOR")},
		{"192.168.122.1:6233", ipmi("192.168.122.1", "6233", "ADMINISTRATOR")},
		{"my.favoritebmc.com", ipmi("my.favoritebmc.com", "", "ADMINISTRATOR")},
		{"bmc-1.example.com:623", ipmi("bmc-1.example.com", "623", "ADMINISTRATOR")},
		{"[fe80::fc33:62ff:fe83:8a76]:6233", ipmi("fe80::fc33:62ff:fe83:8a76", "6233", "ADMINISTRATOR")},
		// ipmi:// and BMO's scheme-without-slashes form.
		{"ipmi://192.168.122.1", ipmi("192.168.122.1", "", "ADMINISTRATOR")},
		{"ipmi://192.168.122.1:6233", ipmi("192.168.122.1", "6233", "ADMINISTRATOR")},
		{"IPMI://192.168.122.1", ipmi("192.168.122.1", "", "ADMINISTRATOR")},
		{"ipmi:192.168.122.1", ipmi("192.168.122.1", "", "ADMINISTRATOR")},
		{"ipmi:192.168.122.1:6233", ipmi("192.168.122.1", "6233", "ADMINISTRATOR")},
		{"ipmi://[fd00::1]", ipmi("fd00::1", "", "ADMINISTRATOR")},
		{"ipmi://[fd00::1]:6230", ipmi("fd00::1", "6230", "ADMINISTRATOR")},
		{"ipmi://192.168.122.1?privilegelevel=OPERATOR", ipmi("192.168.122.1", "", "OPERATOR")},
		{"ipmi://192.168.122.1?privilegelevel=user", ipmi("192.168.122.1", "", "USER")},
		{"192.168.122.1:623?privilegelevel=CALLBACK", ipmi("192.168.122.1", "623", "CALLBACK")},
		// libvirt is ipmi that always needs a MAC.
		{"libvirt://192.168.122.1:6233/?abc=def", want{typ: "libvirt", host: "192.168.122.1", port: "6233",
			path: "/", priv: "ADMINISTRATOR", driver: "ipmi", ifaces: ipmiIfaces, needsMAC: true}},
		// Redfish family.
		{"redfish://192.168.122.1", rf("redfish", "https", "192.168.122.1", "", "", "ipxe", false)},
		{"redfish+http://192.168.122.1:8000/redfish/v1/Systems/1",
			rf("redfish", "http", "192.168.122.1", "8000", "/redfish/v1/Systems/1", "ipxe", false)},
		{"redfish+https://bmc.example.com/", rf("redfish", "https", "bmc.example.com", "", "/", "ipxe", false)},
		{"redfish:192.168.122.1", rf("redfish", "https", "192.168.122.1", "", "", "ipxe", false)},
		{"redfish://[fd00::1]:8000/redfish/v1/Systems/abc",
			rf("redfish", "https", "fd00::1", "8000", "/redfish/v1/Systems/abc", "ipxe", false)},
		{"redfish://[fd00::1]", rf("redfish", "https", "fd00::1", "", "", "ipxe", false)},
		{"ilo5-redfish://10.0.0.5", rf("ilo5-redfish", "https", "10.0.0.5", "", "", "ipxe", false)},
		{"ilo5-redfish+http://10.0.0.5", rf("ilo5-redfish", "http", "10.0.0.5", "", "", "ipxe", false)},
		{"ilo5-redfish+https://10.0.0.5", rf("ilo5-redfish", "https", "10.0.0.5", "", "", "ipxe", false)},
		{"redfish-virtualmedia://10.0.0.5", rf("redfish-virtualmedia", "https", "10.0.0.5", "", "", vmBoot, true)},
		{"redfish-virtualmedia+http://10.0.0.5", rf("redfish-virtualmedia", "http", "10.0.0.5", "", "", vmBoot, true)},
		{"redfish-virtualmedia+https://10.0.0.5", rf("redfish-virtualmedia", "https", "10.0.0.5", "", "", vmBoot, true)},
		{"ilo5-virtualmedia://10.0.0.5", rf("ilo5-virtualmedia", "https", "10.0.0.5", "", "", vmBoot, true)},
		{"ilo5-virtualmedia+http://10.0.0.5", rf("ilo5-virtualmedia", "http", "10.0.0.5", "", "", vmBoot, true)},
		{"ilo5-virtualmedia+https://10.0.0.5", rf("ilo5-virtualmedia", "https", "10.0.0.5", "", "", vmBoot, true)},
		{"redfish-uefihttp://10.0.0.5", rf("redfish-uefihttp", "https", "10.0.0.5", "", "", httpsBoot, true)},
		{"redfish-uefihttp+http://10.0.0.5", rf("redfish-uefihttp", "http", "10.0.0.5", "", "", httpsBoot, true)},
		{"redfish-uefihttp+https://10.0.0.5", rf("redfish-uefihttp", "https", "10.0.0.5", "", "", httpsBoot, true)},
		{"idrac-redfish://10.0.0.5", idrac("idrac-redfish", "https", "ipxe", false)},
		{"idrac-redfish+http://10.0.0.5", idrac("idrac-redfish", "http", "ipxe", false)},
		{"idrac-redfish+https://10.0.0.5", idrac("idrac-redfish", "https", "ipxe", false)},
		{"idrac-virtualmedia://10.0.0.5", idrac("idrac-virtualmedia", "https", idracVM, true)},
		{"idrac-virtualmedia+http://10.0.0.5", idrac("idrac-virtualmedia", "http", idracVM, true)},
		{"idrac-virtualmedia+https://10.0.0.5", idrac("idrac-virtualmedia", "https", idracVM, true)},
		// The vendor drivers BMO had: their own hardware types and keys.
		{"ilo5://10.0.0.5", want{typ: "ilo5", host: "10.0.0.5", driver: "ilo5",
			ifaces: map[string]string{"boot_interface": "ilo-ipxe", "raid_interface": "ilo5"}}},
		{"ilo4://10.0.0.5:8443", want{typ: "ilo4", host: "10.0.0.5", port: "8443", driver: "ilo",
			ifaces: map[string]string{"boot_interface": "ilo-ipxe", "raid_interface": "no-raid"}}},
		{"irmc://10.0.0.5", want{typ: "irmc", host: "10.0.0.5", driver: "irmc",
			ifaces: map[string]string{"boot_interface": "ipxe", "raid_interface": "no-raid"}}},
	} {
		t.Run(tc.address, func(t *testing.T) {
			d, err := Parse(tc.address)
			if err != nil {
				t.Fatalf("ParseAddress: %v", err)
			}
			w := tc.want
			got := want{d.Type, d.Transport, d.Host, d.Port, d.Path, d.PrivilegeLevel, d.Driver,
				d.Interfaces, d.FastInspectInterface, d.SupportsSecureBoot, d.VirtualMedia, d.NeedsMAC}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("got  %+v\nwant %+v", got, w)
			}
			if d.Address != tc.address {
				t.Errorf("Address = %q", d.Address)
			}
			if d.IsRedfish() != (w.transport != "") {
				t.Errorf("IsRedfish = %v", d.IsRedfish())
			}
			if d.RequiresProvisioningNetwork() == w.virtualMedia {
				t.Errorf("RequiresProvisioningNetwork = %v", d.RequiresProvisioningNetwork())
			}
		})
	}
}

func TestParseAddressErrors(t *testing.T) {
	for _, tc := range []struct {
		name, address string
		want          []string
	}{
		{"empty", "", []string{"BMC address is empty"}},
		{"blank", "   ", []string{"BMC address is empty"}},
		{"whitespace", "redfish://bmc .example.com", []string{"contains whitespace"}},
		{"unknown scheme", "ftp://10.0.0.5", []string{`unknown BMC address scheme "ftp"`,
			"ipmi, libvirt, redfish, redfish+http, redfish+https, redfish-virtualmedia",
			"idrac-virtualmedia+https", "ilo5-virtualmedia+https", "bare host or host:port means ipmi"}},
		{"vendor driver with transport", "ilo5+https://10.0.0.5", []string{`unknown BMC address scheme "ilo5+https"`}},
		{"vendor driver with path", "irmc://10.0.0.5/redfish/v1", []string{`has a path (/redfish/v1); irmc addresses are only a host and port`}},
		{"vendor driver with query", "ilo4://10.0.0.5?privilegelevel=USER", []string{`has a query (privilegelevel=USER); ilo4 addresses are only a host and port`}},
		{"ipmi with transport", "ipmi+https://10.0.0.5", []string{`unknown BMC address scheme "ipmi+https"`}},
		{"libvirt with transport", "libvirt+http://10.0.0.5", []string{`unknown BMC address scheme "libvirt+http"`}},
		{"bad transport", "redfish+ftp://10.0.0.5", []string{`unknown BMC address scheme "redfish+ftp"`}},
		{"empty scheme", "://10.0.0.5", []string{"empty scheme"}},
		{"no host", "redfish://", []string{"has no host"}},
		{"no host with path", "redfish:///redfish/v1/Systems/1", []string{"has no host"}},
		{"only port", "ipmi://:623", []string{"has no host"}},
		{"path on ipmi", "ipmi://10.0.0.6:623/redfish/v1/Systems/1", []string{"has a path (/redfish/v1/Systems/1); ipmi addresses are only a host and port"}},
		{"path on libvirt", "libvirt://10.0.0.6/x", []string{"libvirt addresses are only a host and port"}},
		{"bad dns name", "my-.examplehost.com", []string{`host "my-.examplehost.com" is neither an IP address nor a valid DNS name`}},
		{"underscore", "redfish://bmc_1.example.com", []string{"neither an IP address nor a valid DNS name"}},
		{"bad ipv4", "ipmi://10.0.0.256", []string{`host "10.0.0.256" is not a valid IPv4 address`}},
		{"bad ipv6", "[fe80::fc33:62ff:fe33:8xff]:6223", []string{"cannot parse BMC address", "invalid host"}},
		{"ipv4 in brackets", "redfish://[10.0.0.5]:443", []string{"cannot parse BMC address", "invalid IP-literal"}},
		{"ipv6 zone", "redfish://[fe80::1%25eth0]:443", []string{`host "fe80::1%eth0" is neither an IP address`}},
		{"bare ipv6", "fd00::1", []string{"IPv6 address must be written in brackets"}},
		{"ipv6 no brackets in url", "redfish://fd00::1/x", []string{"IPv6 address must be written in brackets"}},
		{"bare bracketed ipv6 without port", "[fe80::fc33:62ff:fe83:8a76]", []string{"bare IPv6 address needs a port"}},
		{"port zero", "ipmi://10.0.0.5:0", []string{`port "0" is not a number from 1 to 65535`}},
		{"port too big", "10.0.0.5:65536", []string{`port "65536" is not a number from 1 to 65535`}},
		{"port not a number", "redfish://10.0.0.5:https", []string{"cannot parse BMC address", "invalid port"}},
		{"bare port not a number", "bmc.example.com:abc", []string{"cannot parse BMC address", "invalid port"}},
		{"empty port", "redfish://10.0.0.5:/x", []string{"the port is empty"}},
		{"bad escape", "redfish://10.0.0.5/%zz", []string{"cannot parse BMC address", "invalid URL escape"}},
		{"bad privilege level", "ipmi://10.0.0.5?privilegelevel=ROOT", []string{`privilegelevel "ROOT" is not one of ADMINISTRATOR, CALLBACK, OPERATOR, USER`}},
		{"bad query", "ipmi://10.0.0.5?privilegelevel=%zz", []string{"cannot parse the query"}},
		{"credentials in url", "redfish://admin:s3cr3t@10.0.0.5/redfish/v1/Systems/1",
			[]string{"must not contain a username or password", "redfish://REDACTED@10.0.0.5/redfish/v1/Systems/1"}},
		{"credentials in bare address", "admin:s3cr3t@10.0.0.5", []string{"must not contain a username or password"}},
		{"credentials and bad url", "redfish://admin:s3cr3t@10.0.0.5:bad/%zz", []string{"REDACTED@"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(tc.address)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", tc.address, d)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			if strings.Contains(msg, "s3cr3t") || strings.Contains(msg, "admin:") {
				t.Errorf("error leaks credentials: %q", msg)
			}
		})
	}
}

func TestDriverInfo(t *testing.T) {
	for _, tc := range []struct {
		address  string
		noVerify bool
		want     map[string]any
	}{
		{"192.168.122.1", false, map[string]any{
			"ipmi_address": "192.168.122.1", "ipmi_port": "623", "ipmi_username": "u",
			"ipmi_password": "p", "ipmi_priv_level": "ADMINISTRATOR"}},
		{"ipmi://192.168.122.1:6233?privilegelevel=OPERATOR", true, map[string]any{
			"ipmi_address": "192.168.122.1", "ipmi_port": "6233", "ipmi_username": "u",
			"ipmi_password": "p", "ipmi_priv_level": "OPERATOR", "ipmi_verify_ca": false}},
		{"[fd00::1]:6230", false, map[string]any{
			"ipmi_address": "fd00::1", "ipmi_port": "6230", "ipmi_username": "u",
			"ipmi_password": "p", "ipmi_priv_level": "ADMINISTRATOR"}},
		{"ilo5://10.0.0.5", false, map[string]any{"ilo_address": "10.0.0.5", "ilo_username": "u", "ilo_password": "p"}},
		{"ilo4://10.0.0.5:8443", true, map[string]any{
			"ilo_address": "10.0.0.5", "client_port": "8443", "ilo_username": "u", "ilo_password": "p", "ilo_verify_ca": false}},
		{"irmc://10.0.0.5:443", false, map[string]any{
			"irmc_address": "10.0.0.5", "irmc_port": "443", "irmc_username": "u", "irmc_password": "p"}},
		{"libvirt://192.168.122.1", false, map[string]any{
			"ipmi_address": "192.168.122.1", "ipmi_port": "623", "ipmi_username": "u",
			"ipmi_password": "p", "ipmi_priv_level": "ADMINISTRATOR"}},
		{"redfish://192.168.122.1/redfish/v1/foo/bar", true, map[string]any{
			"redfish_address": "https://192.168.122.1", "redfish_system_id": "/redfish/v1/foo/bar",
			"redfish_username": "u", "redfish_password": "p", "redfish_verify_ca": false}},
		{"redfish+http://192.168.122.1/foo/bar", false, map[string]any{
			"redfish_address": "http://192.168.122.1", "redfish_system_id": "/foo/bar",
			"redfish_username": "u", "redfish_password": "p"}},
		{"redfish://192.168.122.1:8080/foo", false, map[string]any{
			"redfish_address": "https://192.168.122.1:8080", "redfish_system_id": "/foo",
			"redfish_username": "u", "redfish_password": "p"}},
		{"redfish://[fe80::fc33:62ff:fe83:8a76]/foo/bar", false, map[string]any{
			"redfish_address": "https://[fe80::fc33:62ff:fe83:8a76]", "redfish_system_id": "/foo/bar",
			"redfish_username": "u", "redfish_password": "p"}},
		{"redfish-virtualmedia+https://[fd00::1]:8000/redfish/v1/Systems/1", false, map[string]any{
			"redfish_address": "https://[fd00::1]:8000", "redfish_system_id": "/redfish/v1/Systems/1",
			"redfish_username": "u", "redfish_password": "p"}},
		{"redfish+https://192.168.122.1/", false, map[string]any{
			"redfish_address": "https://192.168.122.1", "redfish_username": "u", "redfish_password": "p"}},
		{"redfish-virtualmedia://192.168.122.1/redfish/v1/", false, map[string]any{
			"redfish_address": "https://192.168.122.1", "redfish_username": "u", "redfish_password": "p"}},
		{"idrac-virtualmedia://192.168.122.1/redfish/v1", false, map[string]any{
			"redfish_address": "https://192.168.122.1", "redfish_username": "u", "redfish_password": "p"}},
		{"ilo5-virtualmedia+http://bmc.example.com:8443/redfish/v1/Systems/1", true, map[string]any{
			"redfish_address": "http://bmc.example.com:8443", "redfish_system_id": "/redfish/v1/Systems/1",
			"redfish_username": "u", "redfish_password": "p", "redfish_verify_ca": false}},
	} {
		t.Run(tc.address, func(t *testing.T) {
			d, err := Parse(tc.address)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.DriverInfo("u", "p", tc.noVerify); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("DriverInfo:\n got  %v\n want %v", got, tc.want)
			}
		})
	}
}

func TestAccess(t *testing.T) {
	d, err := Parse("idrac-virtualmedia://10.0.0.5/redfish/v1/Systems/System.Embedded.1")
	if err != nil {
		t.Fatal(err)
	}
	a := d.Access("root", "calvin", false)
	if a.Address != d.Address || a.Driver != "idrac" || !a.VirtualMedia || a.NeedsMAC || !a.HasCredentials() {
		t.Errorf("unexpected access %+v", a)
	}
	if !reflect.DeepEqual(a.Interfaces, idracIfaces("idrac-redfish-virtual-media")) {
		t.Errorf("Interfaces = %v", a.Interfaces)
	}
	a.Interfaces["boot_interface"] = "changed"
	if d.Interfaces["boot_interface"] != "idrac-redfish-virtual-media" {
		t.Error("Access must copy the interfaces map")
	}
	if a.DriverInfo["redfish_password"] != "calvin" || a.DriverInfo["redfish_system_id"] != "/redfish/v1/Systems/System.Embedded.1" {
		t.Errorf("DriverInfo = %v", a.DriverInfo)
	}

	v := a.CredentialsVersion
	if len(v) != 64 || strings.Trim(v, "0123456789abcdef") != "" {
		t.Errorf("CredentialsVersion %q is not hex SHA-256", v)
	}
	if strings.Contains(v, "calvin") {
		t.Error("CredentialsVersion contains the password")
	}
	if again := d.Access("root", "calvin", false).CredentialsVersion; again != v {
		t.Error("CredentialsVersion is not stable")
	}
	other, _ := Parse("idrac-virtualmedia://10.0.0.6/redfish/v1/Systems/System.Embedded.1")
	changed := map[string]string{
		"password": d.Access("root", "calvin2", false).CredentialsVersion,
		"username": d.Access("admin", "calvin", false).CredentialsVersion,
		"verify":   d.Access("root", "calvin", true).CredentialsVersion,
		"address":  other.Access("root", "calvin", false).CredentialsVersion,
		// Length-prefixing keeps shifted boundaries apart.
		"boundary": d.Access("rootc", "alvin", false).CredentialsVersion,
	}
	for what, c := range changed {
		if c == v {
			t.Errorf("CredentialsVersion did not change with the %s", what)
		}
	}

	lv, _ := Parse("libvirt://192.168.122.1:6233")
	la := lv.Access("admin", "password", false)
	if !la.NeedsMAC || la.VirtualMedia || la.Driver != "ipmi" || !reflect.DeepEqual(la.Interfaces, ipmiIfaces) {
		t.Errorf("libvirt access %+v", la)
	}
}

func TestRedfishEndpoint(t *testing.T) {
	for _, tc := range []struct {
		address, base, system string
	}{
		{"redfish://10.0.0.5", "https://10.0.0.5", ""},
		{"redfish+http://10.0.0.5:8000/redfish/v1/Systems/1", "http://10.0.0.5:8000", "/redfish/v1/Systems/1"},
		{"redfish-virtualmedia+http://[fd00::1]:8000/redfish/v1/Systems/vm-1", "http://[fd00::1]:8000", "/redfish/v1/Systems/vm-1"},
		{"idrac-virtualmedia://[fd00::1]/redfish/v1/", "https://[fd00::1]", ""},
		{"redfish-uefihttp://bmc.example.com/redfish/v1/Systems/1", "https://bmc.example.com", "/redfish/v1/Systems/1"},
		{"ilo5-redfish+https://bmc.example.com:443", "https://bmc.example.com:443", ""},
	} {
		base, system, err := RedfishEndpoint(tc.address)
		if err != nil {
			t.Errorf("%s: %v", tc.address, err)
			continue
		}
		if base != tc.base || system != tc.system {
			t.Errorf("%s: got (%q, %q), want (%q, %q)", tc.address, base, system, tc.base, tc.system)
		}
	}
	for _, addr := range []string{"ipmi://10.0.0.5", "libvirt://10.0.0.5", "10.0.0.5"} {
		if _, _, err := RedfishEndpoint(addr); err == nil || !strings.Contains(err.Error(), "does not speak Redfish") {
			t.Errorf("%s: err = %v, want 'does not speak Redfish'", addr, err)
		}
	}
	if _, _, err := RedfishEndpoint("nope://x"); err == nil {
		t.Error("want a parse error")
	}
}

func TestSupportedSchemes(t *testing.T) {
	got := SupportedSchemes()
	want := []string{
		"ipmi", "libvirt",
		"redfish", "redfish+http", "redfish+https",
		"redfish-virtualmedia", "redfish-virtualmedia+http", "redfish-virtualmedia+https",
		"redfish-uefihttp", "redfish-uefihttp+http", "redfish-uefihttp+https",
		"idrac-redfish", "idrac-redfish+http", "idrac-redfish+https",
		"idrac-virtualmedia", "idrac-virtualmedia+http", "idrac-virtualmedia+https",
		"ilo5-redfish", "ilo5-redfish+http", "ilo5-redfish+https",
		"ilo5-virtualmedia", "ilo5-virtualmedia+http", "ilo5-virtualmedia+https",
		"ilo4", "ilo5", "irmc",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SupportedSchemes = %v", got)
	}
	// Every listed scheme parses.
	for _, s := range got {
		if _, err := Parse(s + "://10.0.0.5"); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

func TestRedactAddress(t *testing.T) {
	for in, want := range map[string]string{
		"redfish://u:p@10.0.0.5/x@y":  "redfish://REDACTED@10.0.0.5/x@y",
		"u:p@10.0.0.5":                "REDACTED@10.0.0.5",
		"redfish://10.0.0.5/x@y":      "redfish://10.0.0.5/x@y",
		"ipmi://10.0.0.5?x=a@b":       "ipmi://10.0.0.5?x=a@b",
		"redfish://a@b@10.0.0.5:8000": "redfish://REDACTED@10.0.0.5:8000",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
