package provider_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/provider"
)

// The bad-input corpus: configurations with one mistake each, as a new user
// makes them. Each must fail at `terraform validate`, which never
// configures the provider (so needs no Ironic), with an error that names
// the attribute and the bad value.
//
// How it runs: the provider is served in this process and a real Terraform
// CLI reattaches to it. Each case is its own .tf file (its own provider
// alias, resource and data source names) in one directory, and one
// `terraform validate -json` judges them all; every diagnostic carries the
// file it belongs to, so each case's errors are checked on their own, and
// a good_*.tf file of correct configurations must draw none. Cases that
// need environment variables run alone in their own directory.
//
// Why it proves "at validate": terraform validate calls the provider's
// Validate* RPCs only. The served provider also has ConfigureProvider
// replaced by a spy that records any call; the test fails if it ran.

// configureSpy is the provider server with ConfigureProvider replaced.
type configureSpy struct {
	tfprotov6.ProviderServer
	called *atomic.Bool
}

func (s configureSpy) ConfigureProvider(context.Context, *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	s.called.Store(true)
	return &tfprotov6.ConfigureProviderResponse{Diagnostics: []*tfprotov6.Diagnostic{{
		Severity: tfprotov6.DiagnosticSeverityError, Summary: "ConfigureProvider called",
		Detail: "validation let this configuration through to Configure",
	}}}, nil
}

// badCase is one configuration with one mistake. Its config uses NAME for
// its resource names and provider alias, and DIR for the directory of the
// files the test writes (CA certificates).
type badCase struct {
	name   string
	attr   string   // the attribute the error must name
	config string   // HCL
	want   []string // each must appear in the case's errors
	env    map[string]string
}

func bad(name, attr, config string, want ...string) badCase {
	return badCase{name: name, attr: attr, config: config, want: want}
}

// providerCase is a provider block (as an alias) with body, and a data
// source that uses it so that Terraform validates it.
func providerCase(body string) string {
	return `provider "baremetal" {
  alias = "NAME"
` + body + `
}
data "baremetal_network_data" "NAME" {
  provider = baremetal.NAME
}
`
}

// host is a valid host with the given arguments added (or, for a key
// already there, replacing it).
func host(args string) string {
	return resourceBlock("baremetal_host", map[string]string{
		"name":             `"worker-NAME"`,
		"boot_mac_address": `"52:54:00:12:34:56"`,
		"bmc": `{
    address  = "redfish://10.0.0.5/redfish/v1/Systems/1"
    username = "admin"
    password = "secret"
  }`,
	}, args)
}

// bmcAt is a host's bmc attribute with the corpus' credentials, at
// address.
func bmcAt(address string) string {
	return fmt.Sprintf(`
  bmc = {
    address  = %q
    username = "admin"
    password = "secret"
  }`, address)
}

func claim(args string) string {
	return resourceBlock("baremetal_host_claim", map[string]string{}, args)
}

func deployment(args string) string {
	return resourceBlock("baremetal_deployment", map[string]string{
		"host_id": `"worker-0"`,
		"image":   `{ url = "http://images.example.com/os.qcow2", checksum = "` + strings.Repeat("a", 64) + `" }`,
	}, args)
}

func networkData(args string) string {
	return block("data", "baremetal_network_data", map[string]string{}, args)
}

func hosts(args string) string { return block("data", "baremetal_hosts", map[string]string{}, args) }

func resourceBlock(typ string, base map[string]string, args string) string {
	return block("resource", typ, base, args)
}

// block renders kind "typ" "NAME" with base's arguments, except those that
// args sets again, then args.
func block(kind, typ string, base map[string]string, args string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q \"NAME\" {\n", kind, typ)
	keys := make([]string, 0, len(base))
	for k := range base {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !regexp.MustCompile(`(?m)^\s*` + k + `\s*=`).MatchString(args) {
			fmt.Fprintf(&b, "  %s = %s\n", k, base[k])
		}
	}
	b.WriteString(args + "\n}\n")
	return b.String()
}

const eth0 = `links = { ethernets = [{ id = "eth0", mac_address = "52:54:00:12:34:56" }] }
`

func staticNet(args string) string {
	return networkData(eth0 + `networks = { ipv4 = [{ id = "n", link = "eth0", ` + args + ` }] }`)
}

// corpus is every one-mistake configuration.
func corpus() []badCase {
	return []badCase{
		// Provider settings that need no server.
		bad("endpoint without a scheme", "endpoint", providerCase(`endpoint = "127.0.0.1:6385"`),
			"Invalid endpoint", `"127.0.0.1:6385"`, "must start with http:// or https://"),
		bad("endpoint of another scheme", "endpoint", providerCase(`endpoint = "ftp://ironic.example.com"`),
			"Invalid endpoint", `"ftp://ironic.example.com"`),
		bad("endpoint with a bad port", "endpoint", providerCase(`endpoint = "http://ironic:99999"`),
			"Invalid endpoint", "port 99999"),
		bad("endpoint with a query", "endpoint", providerCase(`endpoint = "http://ironic:6385/?x=1"`),
			"Invalid endpoint", "no query"),
		bad("unknown auth", "auth", providerCase(`auth = "basic"`),
			"auth", `got: "basic"`),
		bad("http_basic without a password", "password", providerCase(`
  auth     = "http_basic"
  username = "ironic"`), "Incomplete http_basic authentication", "password is not set"),
		bad("http_basic without a user name", "username", providerCase(`
  auth     = "http_basic"
  password = "x"`), "Incomplete http_basic authentication", "username is not set"),
		bad("keystone with nothing to find Keystone", "keystone", providerCase(`auth = "keystone"`),
			"Incomplete keystone authentication", "keystone.cloud"),
		bad("keystone auth_url without credentials", "keystone", providerCase(`
  auth     = "keystone"
  keystone = { auth_url = "https://keystone.example.com/v3" }`),
			"Incomplete keystone authentication", "keystone.username and keystone.password"),
		bad("keystone auth_url not a URL", "keystone.auth_url", providerCase(`
  auth     = "keystone"
  keystone = { auth_url = "keystone:5000", username = "u", password = "p" }`),
			"Invalid keystone.auth_url", `"keystone:5000"`),
		bad("keystone settings with noauth", "keystone", providerCase(`
  auth     = "noauth"
  keystone = { cloud = "prod" }`), "keystone settings without keystone authentication", `auth is "noauth"`),
		bad("keystone application credential without its secret", "keystone", providerCase(`
  auth     = "keystone"
  keystone = { auth_url = "https://keystone.example.com/v3", application_credential_id = "ac1" }`),
			"Incomplete keystone application credential", "keystone.application_credential_secret"),
		bad("keystone interface unknown", "keystone.interface", providerCase(`
  auth     = "keystone"
  keystone = { cloud = "prod", interface = "private" }`), "keystone.interface", `"private"`),
		bad("CA file missing", "ca_cert_file", providerCase(`ca_cert_file = "DIR/missing-ca.pem"`),
			"Invalid ca_cert_file", `missing-ca.pem": no such file or directory`),
		bad("CA file not PEM", "ca_cert_file", providerCase(`ca_cert_file = "DIR/not-pem.txt"`),
			"Invalid ca_cert_file", `not-pem.txt": no PEM certificate in it`),
		bad("CA PEM garbage", "ca_cert_pem", providerCase(`ca_cert_pem = "hello"`),
			"Invalid ca_cert_pem", "no PEM certificate"),
		bad("CA PEM certificate that does not parse", "ca_cert_pem", providerCase(`ca_cert_pem = <<-EOT
    -----BEGIN CERTIFICATE-----
    aGVsbG8gd29ybGQ=
    -----END CERTIFICATE-----
  EOT`), "Invalid ca_cert_pem", "certificate 1 does not parse"),
		bad("CA file and CA PEM", "ca_cert_pem", providerCase(`
  ca_cert_file = "DIR/ca.pem"
  ca_cert_pem  = file("DIR/ca.pem")`), "Conflicting CA settings"),
		bad("insecure with a CA file", "insecure", providerCase(`
  ca_cert_file = "DIR/ca.pem"
  insecure     = true`), "insecure together with a CA", "insecure = true", "ca_cert_file would be ignored"),
		bad("insecure with a CA PEM", "insecure", providerCase(`
  ca_cert_pem = file("DIR/ca.pem")
  insecure    = true`), "insecure together with a CA", "ca_cert_pem would be ignored"),
		bad("client certificate without its key", "client_key_file", providerCase(`client_cert_file = "DIR/ca.pem"`),
			"Incomplete client certificate", "client_key_file is not set"),
		bad("client key that is no key", "client_cert_file", providerCase(`
  client_cert_file = "DIR/ca.pem"
  client_key_file  = "DIR/not-pem.txt"`), "Invalid client certificate", "not a PEM certificate and its key"),
		bad("microversion not 1.N", "microversion", providerCase(`microversion = "latest"`),
			"Invalid microversion", `"latest" is not an Ironic API microversion`),
		bad("microversion below the minimum", "microversion", providerCase(`microversion = "1.40"`),
			"Invalid microversion", `"1.40" is older than the provider's minimum, 1.56`),
		bad("max_concurrent_provisioning zero", "max_concurrent_provisioning", providerCase(`max_concurrent_provisioning = 0`),
			"Invalid max_concurrent_provisioning", "max_concurrent_provisioning: 0"),
		bad("max_concurrent_provisioning negative", "max_concurrent_provisioning", providerCase(`max_concurrent_provisioning = -2`),
			"Invalid max_concurrent_provisioning", "max_concurrent_provisioning: -2"),
		bad("api_wait_timeout not a duration", "api_wait_timeout", providerCase(`api_wait_timeout = "5 minutes"`),
			"Invalid api_wait_timeout", `"5 minutes" is not a duration`),
		envCase("BAREMETAL_ENDPOINT without a scheme", "endpoint", map[string]string{"BAREMETAL_ENDPOINT": "ironic:6385"},
			"Invalid endpoint", `BAREMETAL_ENDPOINT (environment): "ironic:6385"`),
		envCase("BAREMETAL_MAX_CONCURRENT_PROVISIONING zero", "max_concurrent_provisioning",
			map[string]string{"BAREMETAL_MAX_CONCURRENT_PROVISIONING": "0"},
			"Invalid max_concurrent_provisioning", `BAREMETAL_MAX_CONCURRENT_PROVISIONING (environment): "0"`),
		envCase("BAREMETAL_MICROVERSION too old", "microversion", map[string]string{"BAREMETAL_MICROVERSION": "1.31"},
			"Invalid microversion", `BAREMETAL_MICROVERSION (environment): "1.31" is older`),
		envCase("BAREMETAL_AUTH http_basic without credentials", "username", map[string]string{"BAREMETAL_AUTH": "http_basic"},
			"Incomplete http_basic authentication", `BAREMETAL_AUTH (environment) = "http_basic"`),

		// Hosts: what Ironic or BMO would refuse at apply.
		bad("host name with a space", "name", host(`name = "worker 0"`),
			"Invalid name", `"worker 0" has characters Ironic refuses`),
		bad("host name that is a UUID", "name", host(`name = "0b5a5fd4-5a8c-4c3c-9d6b-1d2f3e4a5b6c"`),
			"Invalid name", "looks like a UUID"),
		bad("MAC with dashes", "boot_mac_address", host(`boot_mac_address = "52-54-00-12-34-56"`),
			"Invalid boot_mac_address", `"52-54-00-12-34-56" is not a MAC address`),
		bad("MAC of five pairs", "boot_mac_address", host(`boot_mac_address = "52:54:00:12:34"`),
			"Invalid boot_mac_address", `"52:54:00:12:34"`),
		bad("MAC in dotted form", "boot_mac_address", host(`boot_mac_address = "5254.0012.3456"`),
			"Invalid boot_mac_address", `"5254.0012.3456"`),
		bad("MAC of twenty bytes", "boot_mac_address", host(`boot_mac_address = "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01"`),
			"Invalid boot_mac_address", "is not a MAC address"),
		bad("custom trait in lower case", "traits", host(`traits = ["custom_gpu"]`),
			`trait "custom_gpu"`, `such as "CUSTOM_GPU"`),
		bad("trait neither standard nor custom", "traits", host(`traits = ["GPU"]`),
			`trait "GPU" is neither a standard trait`),
		bad("standard trait in lower case", "traits", host(`traits = ["hw_cpu_x86_avx2"]`),
			`standard traits are upper case: "HW_CPU_X86_AVX2"`),
		bad("empty resource class", "resource_class", host(`resource_class = ""`),
			"Invalid resource_class", "the resource class is empty"),
		bad("hctl of three numbers", "root_device_hints.hctl", host(`root_device_hints = { hctl = "0:0:0" }`),
			"Invalid root_device_hints.hctl", `"0:0:0" is not a SCSI address`),
		bad("hctl with letters", "root_device_hints.hctl", host(`root_device_hints = { hctl = "a:b:c:d" }`),
			"Invalid root_device_hints.hctl", `"a:b:c:d"`),
		bad("root disk size zero", "root_device_hints.min_size_gigabytes", host(`root_device_hints = { min_size_gigabytes = 0 }`),
			"root_device_hints.min_size_gigabytes", "must be at least 1, got: 0"),
		bad("root disk size negative", "root_device_hints.min_size_gigabytes", host(`root_device_hints = { min_size_gigabytes = -20 }`),
			"root_device_hints.min_size_gigabytes", "got: -20"),
		bad("label key starting with a dash", "labels", host(`labels = { "-role" = "worker" }`),
			`label key "-role" is not a valid Kubernetes label key`),
		bad("label key with a bang", "labels", host(`labels = { "role!" = "worker" }`),
			`label key "role!"`),
		bad("label key with an upper-case prefix", "labels", host(`labels = { "Example.com/role" = "worker" }`),
			`label key "Example.com/role": the prefix "Example.com" must be a lower-case DNS subdomain`),
		bad("UEFISecureBoot on ipmi", "boot_mode", host(`
  boot_mode = "UEFISecureBoot"`+bmcAt("ipmi://10.0.0.6")),
			"UEFISecureBoot", `BMC address type "ipmi"`, "cannot do secure boot"),
		bad("UEFISecureBoot on libvirt", "boot_mode", host(`
  boot_mode = "UEFISecureBoot"`+bmcAt("libvirt://10.0.0.6")),
			"UEFISecureBoot", `BMC address type "libvirt"`),
		bad("path on an ipmi address", "bmc.address", host(bmcAt("ipmi://10.0.0.6:623/redfish/v1/Systems/1")),
			"Invalid bmc.address", `"ipmi://10.0.0.6:623/redfish/v1/Systems/1"`, "has a path"),
		bad("unknown BMC scheme", "bmc.address", host(bmcAt("redfishx://10.0.0.6")),
			"Invalid bmc.address", `unknown BMC address scheme "redfishx"`),
		bad("unknown interface", "interfaces", host(`interfaces = { boots = "pxe" }`),
			`"boots"`),
		bad("boot mode in lower case", "boot_mode", host(`boot_mode = "uefi"`), "boot_mode", `got: "uefi"`),
		bad("erasure mode that Ironic has no step for", "automated_cleaning_mode", host(`automated_cleaning_mode = "secure"`),
			"automated_cleaning_mode", `"express"`, `"full"`, `got: "secure"`),
		bad("preprovisioning network data that is a list", "preprovisioning_network_data", host(`preprovisioning_network_data = "[]"`),
			"a JSON object", "got an array"),
		bad("preprovisioning network on an undefined link", "preprovisioning_network_data",
			host(`preprovisioning_network_data = jsonencode({ links = [], networks = [{ id = "n", type = "ipv4", link = "eth9" }] })`),
			`networks[0] is on link "eth9"`),
		bad("architecture spelled as Go does", "architecture", host(`architecture = "arm64"`), `"aarch64"`, `got: "arm64"`),
		bad("deploy kernel without a ramdisk", "deploy_image", host(`deploy_image = { kernel = "http://images.example.com/ipa.kernel" }`),
			"Incomplete deploy image"),
		bad("deploy image with nothing to boot", "deploy_image", host(`deploy_image = { kernel_params = "console=ttyS0" }`),
			"Incomplete deploy image", "either kernel and ramdisk, or iso"),
		bad("deploy ISO and kernel", "deploy_image.iso", host(`deploy_image = {
    iso     = "http://images.example.com/ipa.iso"
    kernel  = "http://images.example.com/ipa.kernel"
    ramdisk = "http://images.example.com/ipa.initramfs"
  }`), "deploy_image.kernel"),
		bad("deploy ramdisk on FTP", "deploy_image.ramdisk", host(`deploy_image = {
    kernel  = "http://images.example.com/ipa.kernel"
    ramdisk = "ftp://images.example.com/ipa.initramfs"
  }`), "want an http://, https:// or file:// URL"),
		bad("deploy kernel at a relative file path", "deploy_image.kernel", host(`deploy_image = {
    kernel  = "file://images/ipa.kernel"
    ramdisk = "file:///var/lib/ironic/images/ipa.initramfs"
  }`), "absolute path on the conductor"),
		bad("erasure mode that Ironic has no step for", "automated_cleaning_mode", host(`automated_cleaning_mode = "secure"`),
			"automated_cleaning_mode", `"express"`, `"full"`, `got: "secure"`),
		bad("inspection disabled without a MAC", "boot_mac_address", host(`
  inspection       = "disabled"
  boot_mac_address = null`), "Missing boot_mac_address", `inspection = "disabled" needs boot_mac_address`),
		bad("LLDP port on a host inspected out of band", "ports", host(`
  inspection = "out-of-band"
  ports      = [{ mac = "52:54:00:12:34:56", local_link_connection_from_lldp = true }]`),
			"LLDP needs in-band inspection", `port 52:54:00:12:34:56 sets local_link_connection_from_lldp = true, but inspection = "out-of-band" hears no LLDP`),
		bad("conductor group with a space", "conductor_group", host(`conductor_group = "rack 1"`),
			"Invalid conductor_group", `"rack 1"`),
		bad("host create timeout zero", "timeouts.create", host(`timeouts = { create = "0s" }`),
			"Invalid timeouts.create", `"0s" is not greater than zero`),
		bad("host delete timeout negative", "timeouts.delete", host(`timeouts = { delete = "-5m" }`),
			"Invalid timeouts.delete", `"-5m" is not greater than zero`),
		bad("host update timeout not a duration", "timeouts.update", host(`timeouts = { update = "soon" }`),
			"timeouts.update", `"soon"`),

		// Deployments.
		bad("deployment hctl", "root_device_hints.hctl", deployment(`root_device_hints = { hctl = "1-0-0-0" }`),
			"Invalid root_device_hints.hctl", `"1-0-0-0"`),
		bad("deployment root disk size zero", "root_device_hints.min_size_gigabytes", deployment(`root_device_hints = { min_size_gigabytes = 0 }`),
			"root_device_hints.min_size_gigabytes", "got: 0"),
		bad("deployment create timeout zero", "timeouts.create", deployment(`timeouts = { create = "0m" }`),
			"Invalid timeouts.create", `"0m" is not greater than zero`),
		bad("image of an ftp URL", "image.url", deployment(`image = { url = "ftp://h/os.qcow2", checksum = "`+strings.Repeat("a", 32)+`" }`),
			"Unsupported image URL", `"ftp://h/os.qcow2"`),
		bad("checksum of the wrong length", "image.checksum", deployment(`image = { url = "http://h/os.qcow2", checksum = "abc", checksum_type = "sha256" }`),
			"image.checksum"),
		bad("network_data not JSON", "network_data", deployment(`network_data = "{links: []}"`),
			"Invalid network_data", "not valid JSON"),
		bad("negative provisioning retries", "provisioning_retries", deployment(`provisioning_retries = -1`),
			"provisioning_retries", "got: -1"),
		bad("empty host_id", "host_id", deployment(`host_id = ""`), "host_id"),

		// Claims.
		bad("claim name with a slash", "name", claim(`name = "team/a"`),
			"Invalid name", `"team/a" has characters Ironic refuses`),
		bad("claim name that is a UUID", "name", claim(`name = "0b5a5fd4-5a8c-4c3c-9d6b-1d2f3e4a5b6c"`),
			"Invalid name", "looks like a UUID"),
		bad("claim trait with a dash", "traits", claim(`traits = ["CUSTOM_GPU-A100"]`),
			`trait "CUSTOM_GPU-A100"`, `"CUSTOM_GPU_A100"`),
		bad("claim empty resource class", "resource_class", claim(`resource_class = ""`),
			"Invalid resource_class", "the resource class is empty"),
		bad("claim min_cpus zero", "min_cpus", claim(`min_cpus = 0`), "min_cpus", "got: 0"),
		bad("claim min_ram_mebibytes negative", "min_ram_mebibytes", claim(`min_ram_mebibytes = -1024`),
			"min_ram_mebibytes", "got: -1024"),
		bad("claim min_disk_gigabytes zero", "min_disk_gigabytes", claim(`min_disk_gigabytes = 0`), "min_disk_gigabytes", "got: 0"),
		bad("claim match label key invalid", "labels.match_labels", claim(`labels = { match_labels = { "rack 1" = "a" } }`),
			`label key "rack 1"`),
		bad("claim expression key invalid", "labels.match_expressions[0].key", claim(`labels = { match_expressions = [{ key = "zone!", operator = "Exists" }] }`),
			`label key "zone!"`),
		bad("claim operator in lower case", "operator", claim(`labels = { match_expressions = [{ key = "zone", operator = "in", values = ["a"] }] }`),
			"operator", `got: "in"`),
		bad("claim In without values", "labels.match_expressions[0]", claim(`labels = { match_expressions = [{ key = "zone", operator = "In" }] }`),
			"Invalid labels.match_expressions[0]", `key "zone": operator In needs at least one value`),
		bad("claim Exists with values", "labels.match_expressions[0]", claim(`labels = { match_expressions = [{ key = "zone", operator = "Exists", values = ["a"] }] }`),
			"Invalid labels.match_expressions[0]", "operator Exists takes no values"),
		bad("claim label contradicted by NotIn", "labels", claim(`labels = {
    match_labels      = { role = "worker" }
    match_expressions = [{ key = "role", operator = "NotIn", values = ["worker"] }]
  }`), "Contradictory label selector", `label "role": match_labels role = "worker" and match_expressions[0] role NotIn`),
		bad("claim Exists and DoesNotExist", "labels", claim(`labels = { match_expressions = [
    { key = "gpu", operator = "Exists" },
    { key = "gpu", operator = "DoesNotExist" },
  ] }`), "Contradictory label selector", `label "gpu"`, "no host can match"),
		bad("claim disjoint In", "labels", claim(`labels = { match_expressions = [
    { key = "zone", operator = "In", values = ["a"] },
    { key = "zone", operator = "In", values = ["b"] },
  ] }`), "Contradictory label selector", `label "zone"`),
		bad("claim spread_label invalid", "spread_label", claim(`spread_label = "topology/zone/x"`),
			"Invalid spread_label", `label key "topology/zone/x"`),
		bad("claim create timeout negative", "timeouts.create", claim(`timeouts = { create = "-1s" }`),
			"Invalid timeouts.create", `"-1s" is not greater than zero`),

		// Data sources' own arguments.
		bad("hosts min_cpus zero", "min_cpus", hosts(`min_cpus = 0`), "min_cpus", "got: 0"),
		bad("hosts min_disk_gigabytes negative", "min_disk_gigabytes", hosts(`min_disk_gigabytes = -5`), "min_disk_gigabytes", "got: -5"),
		bad("hosts unknown operator", "operator", hosts(`labels = { match_expressions = [{ key = "a", operator = "Equals", values = ["b"] }] }`),
			"operator", `got: "Equals"`),
		bad("hosts NotIn without values", "labels.match_expressions[0]", hosts(`labels = { match_expressions = [{ key = "a", operator = "NotIn" }] }`),
			"Invalid labels.match_expressions[0]", `key "a": operator NotIn needs at least one value`),
		bad("hosts contradictory selector", "labels", hosts(`labels = {
    match_labels      = { rack = "r1" }
    match_expressions = [{ key = "rack", operator = "DoesNotExist" }]
  }`), "Contradictory label selector", `label "rack"`),
		bad("hosts label key invalid", "labels.match_labels", hosts(`labels = { match_labels = { "_x" = "1" } }`), `label key "_x"`),
		bad("hosts trait invalid", "traits", hosts(`traits = ["CUSTOM_gpu"]`), `trait "CUSTOM_gpu"`),
		bad("hosts empty resource class", "resource_class", hosts(`resource_class = ""`), "Invalid resource_class", "empty"),
		bad("host lookup by id and name", "id", `data "baremetal_host" "NAME" {
  id   = "0b5a5fd4-5a8c-4c3c-9d6b-1d2f3e4a5b6c"
  name = "worker-0"
}`, "Invalid Attribute Combination"),
		bad("host lookup by a bad name", "name", `data "baremetal_host" "NAME" { name = "worker 0" }`,
			"Invalid name", `"worker 0"`),

		// Network data documents.
		bad("network address not an IP", "networks.ipv4[0].address", staticNet(`address = "10.0.0.300", prefix = 24`),
			"Invalid networks.ipv4[0].address", `"10.0.0.300"`),
		bad("network CIDR with a bad prefix", "networks.ipv4[0].address", staticNet(`address = "10.0.0.5/33"`),
			"Invalid networks.ipv4[0].address", `"10.0.0.5/33"`),
		bad("network prefix zero", "networks.ipv4[0].prefix", staticNet(`address = "10.0.0.5", prefix = 0`),
			"networks.ipv4[0].prefix", "got: 0"),
		bad("IPv4 network with an IPv6 prefix length", "networks", staticNet(`address = "10.0.0.5", prefix = 64`),
			"Invalid network data", `network "n": prefix 64 is out of range (1-32)`),
		bad("gateway outside the subnet", "networks", staticNet(`address = "10.0.0.5/24", gateway = "10.0.1.1"`),
			"Invalid network data", `gateway "10.0.1.1" is outside the subnet 10.0.0.0/24`),
		bad("gateway not an IP", "networks.ipv4[0].gateway", staticNet(`address = "10.0.0.5/24", gateway = "router"`),
			"Invalid networks.ipv4[0].gateway", `"router" is not an IP address`),
		bad("IPv6 network with an IPv4 address", "networks", networkData(eth0+`networks = { ipv6 = [{ id = "n6", link = "eth0", address = "10.0.0.5/24" }] }`),
			"Invalid network data", `address "10.0.0.5" is not an IPv6 address`),
		bad("DNS server not an IP", "services.dns", networkData(`services = { dns = ["dns.example.com"] }`),
			"Invalid services.dns", `"dns.example.com" is not an IP address`),
		bad("route DNS server not an IP", "networks.ipv4[0].routes[0].dns", staticNet(`address = "10.0.0.5/24", routes = [{ network = "0.0.0.0", prefix = 0, gateway = "10.0.0.1", dns = ["resolver"] }]`),
			`"resolver" is not an IP address`),
		bad("route network not an IP", "networks.ipv4[0].routes[0].network", staticNet(`address = "10.0.0.5/24", routes = [{ network = "default", prefix = 0 }]`),
			`"default" is not an IP address`),
		bad("route IPv4 prefix 33", "networks", staticNet(`address = "10.0.0.5/24", routes = [{ network = "10.1.0.0", prefix = 33, gateway = "10.0.0.1" }]`),
			"Invalid network data", "prefix is out of range (0-32)"),
		bad("network on a link that does not exist", "networks", networkData(eth0+`networks = { ipv4_dhcp = [{ id = "d", link = "eth1" }] }`),
			"Invalid network data", `network "d": link "eth1" matches no link id (links: eth0)`),
		bad("VLAN on a link that does not exist", "links", networkData(`links = {
    ethernets = [{ id = "eth0", mac_address = "52:54:00:12:34:56" }]
    vlans     = [{ id = "v10", vlan_id = 10, vlan_link = "bond0" }]
  }`), "Invalid network data", `vlan "v10": vlan link "bond0" is not an ethernet or bond link`),
		bad("bond member that is not an ethernet", "links", networkData(`links = {
    ethernets = [{ id = "eth0", mac_address = "52:54:00:12:34:56" }]
    bonds     = [{ id = "bond0", mode = "802.3ad", links = ["eth0", "eth9"] }]
  }`), "Invalid network data", `bond "bond0": member "eth9" is not an ethernet link`),
		bad("duplicate link id", "links", networkData(`links = { ethernets = [
    { id = "eth0", mac_address = "52:54:00:12:34:56" },
    { id = "eth0", mac_address = "52:54:00:12:34:57" },
  ] }`), "Invalid network data", `duplicate link id "eth0"`),
		bad("ethernet with a MAC and a host interface", "links", networkData(`links = { ethernets = [{ id = "eth0", mac_address = "52:54:00:12:34:56", from_host_interface = "eno1" }] }`),
			"Invalid network data", `link "eth0": set either a MAC address or a host interface, not both`),
		bad("VLAN id 4095", "links.vlans[0].vlan_id", networkData(`links = {
    ethernets = [{ id = "eth0", mac_address = "52:54:00:12:34:56" }]
    vlans     = [{ id = "v", vlan_id = 4095, vlan_link = "eth0" }]
  }`), "vlan_id", "got: 4095"),
		bad("VLAN id zero", "links.vlans[0].vlan_id", networkData(`links = {
    ethernets = [{ id = "eth0", mac_address = "52:54:00:12:34:56" }]
    vlans     = [{ id = "v", vlan_id = 0, vlan_link = "eth0" }]
  }`), "vlan_id", "got: 0"),
		bad("MTU too large", "links.ethernets[0].mtu", networkData(`links = { ethernets = [{ id = "eth0", mac_address = "52:54:00:12:34:56", mtu = 9216 }] }`),
			"mtu", "got: 9216"),
		bad("MTU too small", "links.ethernets[0].mtu", networkData(`links = { ethernets = [{ id = "eth0", mac_address = "52:54:00:12:34:56", mtu = 20 }] }`),
			"mtu", "got: 20"),
		bad("link MAC of five pairs", "links.ethernets[0].mac_address", networkData(`links = { ethernets = [{ id = "eth0", mac_address = "52:54:00:12:34" }] }`),
			"Invalid links.ethernets[0].mac_address", `"52:54:00:12:34" is not a MAC address`),
		bad("nics map with a bad MAC", "nics", networkData(`nics = { eno1 = "52-54-00-12-34-56" }`),
			`"52-54-00-12-34-56" is not a MAC address`),

		// IP pools and claims.
		bad("IP pool range that ends before it starts", "ranges[0].end", ipPool(`ranges = [{ start = "10.0.0.20", end = "10.0.0.10" }]`),
			"Invalid ranges[0].end", "end 10.0.0.10 is before start 10.0.0.20"),
		bad("IP pool gateway outside the prefix", "gateway", ipPool(`gateway = "10.0.1.1"`),
			"Invalid gateway", "gateway 10.0.1.1 is outside the pool's network 10.0.0.0/24"),
		bad("IP pool ranges that overlap", "ranges[1]", ipPool(`ranges = [
    { start = "10.0.0.10", end = "10.0.0.20" },
    { start = "10.0.0.15", end = "10.0.0.30" },
  ]`), "Invalid ranges[1]", "range 10.0.0.15-10.0.0.30 overlaps ranges[0] (10.0.0.10-10.0.0.20)"),
		bad("IP pool range end outside the prefix", "ranges[0].end", ipPool(`ranges = [{ start = "10.0.0.10", end = "10.0.1.5" }]`),
			"Invalid ranges[0].end", "end 10.0.1.5 is outside the pool's network 10.0.0.0/24"),
		bad("IP pool range of IPv4 and IPv6", "ranges[0].end", ipPool(`ranges = [{ start = "10.0.0.10", end = "fd00::20" }]`),
			"Invalid ranges[0].end", "start 10.0.0.10 is IPv4 but end fd00::20 is IPv6"),
		bad("IP pool name with capitals", "name", ipPool(`name = "Rack_1"`),
			"Invalid name", `"Rack_1" is not a pool name`),
		bad("IP pool prefix of IPv6 length", "prefix", ipPool(`prefix = 64`),
			"Invalid prefix", "prefix 64 is out of range for an IPv4 pool (1-32"),
		bad("IP claim of an empty owner", "owner", resourceBlock("baremetal_ip_claim", map[string]string{"pool": `"r01"`}, `owner = ""`),
			"owner"),
		bad("network with an address and one from a pool", "networks.ipv4[0].address",
			staticNet(`address = "10.0.0.5/24", ip_address_from_pool = "r01", pool_owner = "worker-0"`),
			"Conflicting address", "set either address or ip_address_from_pool"),

		// Firmware updates.
		bad("firmware update component in capitals", "updates[0].component",
			firmwareUpdate(`updates = [{ component = "BIOS", url = "http://img/bios.bin" }]`),
			`component "BIOS" is not one of "bios", "bmc", "nic:<id>"`),
		bad("firmware update ftp URL", "updates[0].url",
			firmwareUpdate(`updates = [{ component = "bios", url = "ftp://img/bios.bin" }]`),
			`url "ftp://img/bios.bin": scheme "ftp" is not one of http, https`),
		bad("firmware update short checksum", "updates[0].checksum",
			firmwareUpdate(`updates = [{ component = "bios", url = "http://img/bios.bin", checksum = "sha256:abc" }]`),
			`checksum "sha256:abc": a sha256 digest has 64 hex digits, not 3`),
		bad("firmware update component twice", "updates[1].component",
			firmwareUpdate(`updates = [{ component = "bmc", url = "http://img/a.bin" }, { component = "bmc", url = "http://img/b.bin" }]`),
			`component "bmc" is already updated by updates[0]`),
		bad("firmware update method unknown", "method",
			firmwareUpdate(`method = "bmc"
  updates = [{ component = "bios", url = "http://img/bios.bin" }]`),
			`value must be one of: ["ironic" "redfish"], got: "bmc"`),
		bad("firmware update without updates", "updates",
			firmwareUpdate(`updates = []`), "at least 1"),
		bad("firmware update bmc of an ipmi address", "bmc.address",
			firmwareUpdate(`updates = [{ component = "bios", url = "http://img/bios.bin" }]
  bmc = { address = "ipmi://10.0.0.6", username = "admin", password = "secret" }`),
			"Invalid bmc.address", `"ipmi://10.0.0.6"`, "does not speak Redfish"),
		bad("firmware settings bmc of an ipmi address", "bmc.address",
			resourceBlock("baremetal_firmware_settings", map[string]string{"host_id": `"worker-0"`},
				`settings = { NumLock = "Off" }
  bmc = { address = "ipmi://10.0.0.6", username = "admin", password = "secret" }`),
			"Invalid bmc.address", `"ipmi://10.0.0.6"`, "does not speak Redfish"),

		// Data sources whose bmc block only serves a Redfish session.
		bad("hardware bmc of an ipmi address", "bmc.address",
			hardware(`bmc = { address = "ipmi://10.0.0.6", username = "admin", password = "secret" }`),
			"Invalid bmc.address", `"ipmi://10.0.0.6"`, `type "ipmi", which does not speak Redfish`),
		bad("firmware inventory bmc of a libvirt address", "bmc.address",
			block("data", "baremetal_firmware", map[string]string{"host_id": `"worker-0"`},
				`bmc = { address = "libvirt://10.0.0.6", username = "admin", password = "secret" }`),
			"Invalid bmc.address", `"libvirt://10.0.0.6"`, "does not speak Redfish"),

		// Runbooks and inspection rules (Ironic 2025.1).
		bad("runbook name not a custom trait", "name", runbook(`name = "firmware-baseline"`),
			"Invalid name", `"firmware-baseline" is not a custom trait name`),
		bad("runbook step with a bad step name", "steps[0].step",
			runbook(`steps = [{ interface = "bios", step = "Apply-Configuration" }]`),
			"Invalid steps[0].step", `"Apply-Configuration"`),
		bad("runbook step with an interface runbooks do not take", "steps[0].interface",
			runbook(`steps = [{ interface = "inspect", step = "x" }]`),
			"Invalid steps[0].interface", `interface "inspect" is not one a runbook step takes`),
		bad("runbook step twice", "steps[1]",
			runbook(`steps = [{ interface = "bios", step = "factory_reset" }, { interface = "bios", step = "factory_reset" }]`),
			"Duplicate runbook step", "bios.factory_reset is in the runbook twice"),
		bad("runbook step args not an object", "steps[0].args",
			runbook(`steps = [{ interface = "bios", step = "x", args = "[1]" }]`), `"[1]" is not a JSON object`),
		bad("inspection rule bad operator", "conditions[0].op",
			inspectionRule(`conditions = [{ op = "greater-than", args = jsonencode(["{inventory[memory][physical_mb]}", 65536]) }]`),
			"Invalid conditions[0].op", `"greater-than" is not an inspection rule operator of Ironic 2025.1`, "eq, gt, in-net"),
		bad("inspection rule bad action", "actions[0].op",
			inspectionRule(`actions = [{ op = "set-traits", args = jsonencode({ name = "CUSTOM_BIG_MEM" }) }]`),
			"Invalid actions[0].op", `"set-traits" is not an inspection rule action of Ironic 2025.1`, "add-trait"),
		bad("inspection rule action missing an argument", "actions[0].args",
			inspectionRule(`actions = [{ op = "set-attribute", args = jsonencode({ path = "resource_class" }) }]`),
			"Invalid actions[0].args", "action set-attribute takes path, value: missing value"),
		bad("inspection rule multiple without loop", "conditions[0].multiple",
			inspectionRule(`conditions = [{ op = "is-true", args = jsonencode(["x"]), multiple = "all" }]`),
			"multiple without loop"),
		bad("inspection rule priority too high", "priority", inspectionRule(`priority = 10000`), "priority", "9999"),
	}
}

func runbook(args string) string {
	return resourceBlock("baremetal_runbook", map[string]string{
		"name":  `"CUSTOM_NAME"`,
		"steps": `[{ interface = "bios", step = "factory_reset" }]`,
	}, args)
}

func inspectionRule(args string) string {
	return resourceBlock("baremetal_inspection_rule", map[string]string{
		"actions": `[{ op = "add-trait", args = jsonencode({ name = "CUSTOM_X" }) }]`,
	}, args)
}

func ipPool(args string) string {
	return resourceBlock("baremetal_ip_pool", map[string]string{
		"name":    `"r01"`,
		"prefix":  "24",
		"gateway": `"10.0.0.1"`,
		"ranges":  `[{ start = "10.0.0.10", end = "10.0.0.20" }]`,
	}, args)
}

func hardware(args string) string {
	return block("data", "baremetal_hardware", map[string]string{"host_id": `"worker-0"`}, args)
}

func firmwareUpdate(args string) string {
	return resourceBlock("baremetal_firmware_update", map[string]string{"host_id": `"worker-0"`}, args)
}

// envCase is a mistake in an environment variable. Its provider block
// sets something else: Terraform does not validate a provider block that
// is empty (or only has alias and version); such a configuration's
// environment is judged by Configure, before any request to Ironic.
func envCase(name, attr string, env map[string]string, want ...string) badCase {
	return badCase{name: name, attr: attr, config: providerCase(`insecure = false`), want: want, env: env}
}

// goodConfigs must validate without errors: they guard against checks that
// refuse what is right, and against checks that trip on unknown values.
const goodConfigs = `
variable "endpoint" { type = string }
variable "ip" { type = string }

provider "baremetal" {
  alias        = "good"
  endpoint     = var.endpoint
  auth         = "http_basic"
  username     = "ironic"
  password     = "secret"
  ca_cert_file = "DIR/ca.pem"
  microversion = "1.82"
}
data "baremetal_network_data" "good_provider" {
  provider = baremetal.good
}

provider "baremetal" {
  alias = "good_appcred"
  auth  = "keystone"
  keystone = {
    auth_url                      = "https://keystone.example.com:5000/v3"
    application_credential_id     = "21dced0fd20347869b93710d2b98aae0"
    application_credential_secret = "s3cret"
    interface                     = "internal"
  }
}
data "baremetal_network_data" "good_appcred" {
  provider = baremetal.good_appcred
}

resource "baremetal_host" "good" {
  name             = "worker-good.rack_1~a"
  boot_mac_address = "52:54:00:AB:cd:ef"
  boot_mode        = "UEFISecureBoot"
  traits           = ["CUSTOM_GPU_A100", "HW_CPU_X86_AVX2"]
  labels           = { "topology.kubernetes.io/zone" = "a", role = "worker" }
  resource_class   = "baremetal-large"
  conductor_group  = "rack-1"
  root_device_hints = { hctl = "0:0:0:0", min_size_gigabytes = 100 }
  bmc = {
    address  = "redfish-virtualmedia://10.0.0.5/redfish/v1/Systems/1"
    username = "admin"
    password = "secret"
  }
  timeouts = { create = "90m" }
}

resource "baremetal_host_claim" "good" {
  name          = "claim-1"
  traits        = ["CUSTOM_GPU_A100"]
  min_cpus      = 4
  spread_label  = "topology.kubernetes.io/zone"
  labels = {
    match_labels      = { role = "worker" }
    match_expressions = [
      { key = "role", operator = "In", values = ["worker", "infra"] },
      { key = "gpu", operator = "NotIn", values = ["none"] },
      { key = "maint", operator = "DoesNotExist" },
    ]
  }
}

data "baremetal_network_data" "good" {
  links = {
    ethernets = [{ id = "eth0", from_host_interface = "eno1" }, { id = "eth1", mac_address = "52:54:00:12:34:57" }]
    bonds     = [{ id = "bond0", mode = "active-backup", links = ["eth0", "eth1"] }]
    vlans     = [{ id = "v10", vlan_id = 10, vlan_link = "bond0" }]
  }
  networks = {
    ipv4 = [
      { id = "a", link = "v10", address = "10.0.0.5/24", gateway = "10.0.0.1" },
      { id = "b", link = "eth1", address = var.ip, prefix = 24, gateway = "192.168.0.1" },
    ]
    ipv6 = [{ id = "c", link = "bond0", address = "fd00::5", prefix = 64, gateway = "fd00::1" }]
  }
  services = { dns = ["10.0.0.53", "fd00::53"] }
}

resource "baremetal_ip_pool" "good" {
  name        = "rack-1"
  prefix      = 24
  gateway     = "10.0.0.1"
  dns_servers = ["10.0.0.53", "fd00::53"]
  ranges = [
    { start = "10.0.0.10", end = "10.0.0.20" },
    { subnet = "10.0.0.128/25", exclude = ["10.0.0.200", "10.0.0.240/28"] },
  ]
  pre_allocations = { "worker-0" = "10.0.0.5" }
}
resource "baremetal_ip_pool" "good_v6" {
  name    = "rack-1-v6"
  prefix  = 64
  gateway = "fd00:1::1"
  ranges  = [{ subnet = "fd00:1::/64", exclude = ["fd00:1::2"] }, ]
}
resource "baremetal_ip_pool" "good_var" {
  name    = "rack-var"
  prefix  = 24
  gateway = var.ip
  ranges  = [{ start = var.ip, end = "10.0.0.20" }]
}
resource "baremetal_ip_claim" "good" {
  for_each = toset(["worker-0", "worker-1"])
  pool     = baremetal_ip_pool.good.name
  owner    = "cluster-a/${each.key}"
}
data "baremetal_network_data" "good_pool" {
  host_id = "worker-0"
  links   = { ethernets = [{ id = "eth0", from_host_interface = "eno1" }] }
  networks = {
    ipv4 = [
      { id = "pool", link = "eth0", ip_address_from_pool = "rack-1", gateway_from_pool = "rack-1", dns_from_pool = "rack-1" },
      { id = "claim", link = "eth0", address = baremetal_ip_claim.good["worker-1"].cidr, gateway = baremetal_ip_claim.good["worker-1"].gateway,
        dns = baremetal_ip_claim.good["worker-1"].dns_servers },
    ]
  }
}

resource "baremetal_firmware_update" "good" {
  host_id = "worker-0"
  updates = [
    { component = "bios", url = "https://img/bios-2.1.bin", checksum = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" },
    { component = "nic:NIC.Integrated.1-1", url = var.endpoint },
    { component = "redfish:Installed-25227-2.9", url = "http://img/x.bin", checksum = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" },
  ]
}

data "baremetal_hardware" "good" {
  host_id = "worker-0"
  bmc     = { address = "redfish-virtualmedia+http://10.0.0.5:8000/redfish/v1/Systems/1", username = "admin", password = "secret" }
}
data "baremetal_firmware" "good" {
  host_id = "worker-0"
  bmc     = { address = "idrac-virtualmedia://10.0.0.9/redfish/v1/Systems/System.Embedded.1", username = "root", password = "calvin" }
}

resource "baremetal_runbook" "good" {
  name = "CUSTOM_FIRMWARE_BASELINE"
  steps = [
    { interface = "bios", step = "apply_configuration", args = jsonencode({ settings = [{ name = "A", value = "1" }] }), order = 1 },
    { interface = "firmware", step = "update", args = var.endpoint },
  ]
  owner = "project-a"
  extra = { team = "infra" }
}

resource "baremetal_inspection_rule" "good" {
  description = "big memory"
  priority    = 50
  sensitive   = true
  conditions = [
    { op = "matches", args = jsonencode({ value = "{inventory[memory][physical_mb]}", regex = "^[0-9]{6,}$" }) },
    { op = "!is-empty", args = jsonencode(["{item}"]), loop = jsonencode(["a", "b"]), multiple = "all" },
    { op = "gt", args = jsonencode({ values = [2, 1], force_strings = false }) },
    { op = var.endpoint, args = var.endpoint },
  ]
  actions = [
    { op = "add-trait", args = jsonencode({ name = "CUSTOM_BIG_MEM" }) },
    { op = "set-attribute", args = jsonencode(["resource_class", "big-mem"]) },
    { op = "log", args = jsonencode({ msg = "m" }) },
    { op = "set-plugin-data", args = jsonencode({ path = "a.b", value = "{item}" }), loop = jsonencode([1, 2]) },
  ]
}
` + goodUnknowns

// goodUnknowns are correct configurations whose checked values are not
// known at terraform validate: each comes from (a) a variable (unknown at
// validate even with a default), (b) an attribute known only after apply
// (terraform_data's output), or (c) a for_each key. Checks must skip them
// (and judge them when ValidateConfig or ModifyPlan runs again with them
// known), never read them as "", 0, false or null.
const goodUnknowns = `
variable "level" {
  type    = string
  default = "1"
}
variable "controller" {
  type    = string
  default = "RAID.Integrated.1-1"
}
variable "raid_interface" {
  type    = string
  default = "agent"
}
variable "interfaces" {
  type    = map(string)
  default = { raid = "agent" }
}
variable "bmc" {
  type = object({ address = string, username = string, password = string })
  default = { address = "redfish://10.0.0.5/redfish/v1/Systems/1", username = "admin", password = "secret" }
}
variable "raid" {
  type    = object({ hardware_volumes = list(object({ level = string })) })
  default = { hardware_volumes = [{ level = "1" }] }
}
variable "volumes" {
  type    = list(object({ level = string, controller = string, physical_disks = list(string) }))
  default = [{ level = "1", controller = "RAID.Integrated.1-1", physical_disks = ["Disk.0", "Disk.1"] }]
}
variable "disk" {
  type    = object({ hctl = string })
  default = { hctl = "0:0:0:0" }
}
variable "disks" {
  type    = list(object({ hctl = string }))
  default = [{ hctl = "0:0:0:0" }, { hctl = "0:0:1:0" }]
}
variable "updates" {
  type    = list(object({ component = string, url = string }))
  default = [{ component = "bios", url = "http://img/bios.bin" }]
}
variable "keystone" {
  type    = object({ cloud = string })
  default = { cloud = "prod" }
}

resource "terraform_data" "later" {
  input = { level = "5", controller = "RAID.Integrated.1-1", raid_interface = "agent", address = "redfish://10.0.0.5/redfish/v1/Systems/1" }
}

# (a) Variables.
resource "baremetal_host" "good_raid_var" {
  name             = "worker-raid-var"
  boot_mac_address = "52:54:00:12:34:60"
  bmc              = var.bmc
  root_device_hints = var.disk
  raid = {
    hardware_volumes = [
      { level = var.level },
      { level = "1", controller = var.controller, physical_disks = ["Disk.0", "Disk.1"] },
    ]
  }
}
resource "baremetal_host" "good_raid_var_interface" {
  name             = "worker-raid-var-iface"
  boot_mac_address = "52:54:00:12:34:61"
  bmc              = { address = "ipmi://10.0.0.7", username = "admin", password = "secret" }
  interfaces       = { raid = var.raid_interface }
  raid             = { software_volumes = [{ level = var.level }, { level = "0" }] }
}
resource "baremetal_host" "good_raid_var_interfaces" {
  name             = "worker-raid-var-ifaces"
  boot_mac_address = "52:54:00:12:34:62"
  bmc              = { address = "ipmi://10.0.0.7", username = "admin", password = "secret" }
  interfaces       = var.interfaces
  raid             = { software_volumes = [{ level = "1", physical_disks = var.disks }] }
}
resource "baremetal_host" "good_raid_var_block" {
  name             = "worker-raid-var-block"
  boot_mac_address = "52:54:00:12:34:63"
  bmc              = var.bmc
  raid             = var.raid
}
resource "baremetal_host" "good_raid_var_volumes" {
  name             = "worker-raid-var-volumes"
  boot_mac_address = "52:54:00:12:34:64"
  bmc              = var.bmc
  raid             = { hardware_volumes = var.volumes }
}
resource "baremetal_host" "good_raid_var_disk" {
  name             = "worker-raid-var-disk"
  boot_mac_address = "52:54:00:12:34:69"
  bmc              = { address = "ipmi://10.0.0.7", username = "admin", password = "secret" }
  interfaces       = { raid = "agent" }
  raid             = { software_volumes = [{ level = "1", physical_disks = [var.disk, { hctl = "0:0:1:0" }] }] }
}

# (b) Attributes known only after apply.
resource "baremetal_host" "good_raid_later" {
  name             = "worker-raid-later"
  boot_mac_address = "52:54:00:12:34:65"
  bmc              = { address = terraform_data.later.output.address, username = "admin", password = "secret" }
  raid = {
    hardware_volumes = [
      { level = terraform_data.later.output.level },
      { level = "1", controller = terraform_data.later.output.controller, physical_disks = ["Disk.0", "Disk.1"] },
    ]
  }
}
resource "baremetal_host" "good_raid_later_interface" {
  name             = "worker-raid-later-iface"
  boot_mac_address = "52:54:00:12:34:66"
  bmc              = { address = "ipmi://10.0.0.7", username = "admin", password = "secret" }
  interfaces       = { raid = terraform_data.later.output.raid_interface }
  raid             = { software_volumes = [{ level = terraform_data.later.output.level == "5" ? "1" : "0" }] }
}

# (c) for_each keys.
resource "baremetal_host" "good_raid_each" {
  for_each         = toset(["1", "5"])
  name             = "worker-raid-each-${each.key}"
  boot_mac_address = "52:54:00:12:34:67"
  bmc              = { address = "redfish://10.0.0.5/redfish/v1/Systems/1", username = "admin", password = "secret" }
  raid = {
    hardware_volumes = [
      { level = each.key },
      { level = "1", controller = each.key == "1" ? "RAID.Integrated.1-1" : "RAID.Slot.2-1", physical_disks = ["Disk.0", "Disk.1"] },
    ]
  }
}
resource "baremetal_host" "good_raid_each_software" {
  for_each         = { agent = "1" }
  name             = "worker-raid-each-sw"
  boot_mac_address = "52:54:00:12:34:68"
  bmc              = { address = "ipmi://10.0.0.7", username = "admin", password = "secret" }
  interfaces       = { raid = each.key }
  raid             = { software_volumes = [{ level = each.value }] }
}

resource "baremetal_firmware_update" "good_var" {
  host_id = "worker-0"
  updates = var.updates
  bmc     = var.bmc
}
resource "baremetal_firmware_update" "good_each" {
  for_each = toset(["bios", "bmc"])
  host_id  = "worker-0"
  updates  = [{ component = each.key, url = "http://img/${each.key}.bin" }, { component = "nic:NIC.1", url = "http://img/nic.bin" }]
}

provider "baremetal" {
  alias    = "good_keystone_var"
  auth     = "keystone"
  keystone = var.keystone
}
data "baremetal_network_data" "good_keystone_var" {
  provider = baremetal.good_keystone_var
}

data "baremetal_hardware" "good_var" {
  host_id = "worker-0"
  bmc     = var.bmc
}
data "baremetal_hardware" "good_later" {
  host_id = "worker-0"
  bmc     = { address = terraform_data.later.output.address, username = "admin", password = "secret" }
}
`

// writeCAFiles writes what the cases' DIR paths name: a CA certificate
// and a file that is not PEM.
func writeCAFiles(t *testing.T, dir string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	pemCert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), pemCert, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "not-pem.txt"), []byte("this is not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// serve serves the provider with the Configure spy and returns the
// reattach string and the spy's flag.
func serve(t *testing.T) (string, *atomic.Bool) {
	t.Helper()
	var called atomic.Bool
	srv, err := providerserver.NewProtocol6WithError(provider.New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	return acctest.Serve(t, configureSpy{ProviderServer: srv, called: &called}), &called
}

// clearProviderEnv unsets the environment that provider settings read, so
// that the developer's environment cannot change the verdicts.
func clearProviderEnv(t *testing.T) {
	for _, k := range []string{"BAREMETAL_ENDPOINT", "BAREMETAL_AUTH", "BAREMETAL_USERNAME", "BAREMETAL_PASSWORD",
		"BAREMETAL_CACERT_FILE", "BAREMETAL_CLIENT_CERT_FILE", "BAREMETAL_CLIENT_KEY_FILE", "BAREMETAL_INSECURE",
		"BAREMETAL_MICROVERSION", "BAREMETAL_API_WAIT_TIMEOUT", "BAREMETAL_MAX_CONCURRENT_PROVISIONING",
		"OS_CLOUD", "OS_AUTH_URL", "OS_USERNAME", "OS_PASSWORD", "OS_TOKEN", "OS_APPLICATION_CREDENTIAL_ID",
		"OS_APPLICATION_CREDENTIAL_NAME", "OS_USER_ID", "OS_CLIENT_CONFIG_FILE"} {
		t.Setenv(k, "")
	}
	// No clouds.yaml of the developer's either.
	t.Setenv("HOME", t.TempDir())
}

func caseFile(i int) string { return fmt.Sprintf("case_%03d.tf", i) }

func render(config string, i int, dir string) string {
	return strings.NewReplacer("NAME", fmt.Sprintf("c%03d", i), "DIR", dir).Replace(config)
}

func TestBadInputCorpus(t *testing.T) {
	acctest.TerraformPath(t)
	clearProviderEnv(t)
	reattach, called := serve(t)
	dir := t.TempDir()
	writeCAFiles(t, dir)
	cases := corpus()
	withoutEnv := 0
	for i, c := range cases {
		if c.env != nil {
			continue
		}
		withoutEnv++
		if err := os.WriteFile(filepath.Join(dir, caseFile(i)), []byte(render(c.config, i, dir)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "good.tf"), []byte(strings.ReplaceAll(goodConfigs, "DIR", dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	cli := acctest.NewCLI(t, dir, reattach)
	byFile := map[string][]tfjson.Diagnostic{}
	for _, d := range cli.Validate(t) {
		if d.Severity != tfjson.DiagnosticSeverityError {
			continue
		}
		f := "(no file)"
		if d.Range != nil {
			f = d.Range.Filename
		}
		byFile[f] = append(byFile[f], d)
	}
	t.Logf("bad-input corpus: %d one-mistake configurations (%d in one terraform validate, %d with environment variables)",
		len(cases), withoutEnv, len(cases)-withoutEnv)
	if ds := byFile["good.tf"]; len(ds) > 0 {
		t.Errorf("correct configurations were refused:\n%s", describe(ds))
	}
	if ds := byFile["(no file)"]; len(ds) > 0 {
		t.Errorf("errors without a place in the configuration:\n%s", describe(ds))
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.env != nil {
				checkCase(t, c, runAlone(t, c, i))
				return
			}
			checkCase(t, c, byFile[caseFile(i)])
		})
	}
	if called.Load() {
		t.Error("ConfigureProvider was called: terraform validate must judge these without configuring the provider")
	}
}

// runAlone validates a case that sets environment variables in its own
// directory, with the variables set for Terraform and the provider (which
// runs in this process).
func runAlone(t *testing.T, c badCase, i int) []tfjson.Diagnostic {
	for k, v := range c.env {
		t.Setenv(k, v)
	}
	reattach, called := serve(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(render(c.config, i, dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	var out []tfjson.Diagnostic
	for _, d := range acctest.NewCLI(t, dir, reattach).Validate(t) {
		if d.Severity == tfjson.DiagnosticSeverityError {
			out = append(out, d)
		}
	}
	if called.Load() {
		t.Error("ConfigureProvider was called")
	}
	return out
}

// checkCase checks that the case drew errors, that together they say
// every wanted part, and that they name the attribute (in the message or
// in the source line Terraform points at).
func checkCase(t *testing.T, c badCase, ds []tfjson.Diagnostic) {
	t.Helper()
	if len(ds) == 0 {
		t.Fatalf("no error: this mistake passes terraform validate")
	}
	text := describe(ds)
	for _, w := range c.want {
		if !strings.Contains(text, w) {
			t.Errorf("the errors do not say %q:\n%s", w, text)
		}
	}
	attr := c.attr[strings.LastIndex(c.attr, ".")+1:]
	if i := strings.Index(attr, "["); i >= 0 {
		attr = attr[:i]
	}
	if !strings.Contains(text, attr) {
		t.Errorf("the errors do not name the attribute %s:\n%s", c.attr, text)
	}
}

func describe(ds []tfjson.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s: %s", d.Summary, d.Detail)
		if d.Snippet != nil {
			fmt.Fprintf(&b, " [at: %s]", strings.TrimSpace(d.Snippet.Code))
		}
		b.WriteString("\n")
	}
	return b.String()
}
