package bmc

import (
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tlsverify"

	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

// RedfishConfig says how to reach one BMC's Redfish service.
type RedfishConfig struct {
	// Endpoint is the BMC's base URL, e.g. https://10.0.0.5 or
	// https://bmc:8443; a path after the host is ignored.
	Endpoint string
	Username string
	Password string
	// Insecure skips TLS certificate verification.
	Insecure bool
	// RootCAs, if set, are trusted instead of the system roots.
	RootCAs *x509.CertPool
	// UseSession logs in with a Redfish session (always logged out again)
	// instead of sending basic credentials with every request.
	UseSession bool
	// Timeout bounds every HTTP attempt; default 30s.
	Timeout time.Duration
	// MaxRetries is how often a request is retried after a connection error,
	// a 5xx (except 501) or a 429; default 3, negative for none.
	MaxRetries int
	// RetryWaitMax caps the jittered backoff between retries; default 5s.
	RetryWaitMax time.Duration
	// HTTPClient, if set, is used as it is: TLS settings and retries are then
	// the caller's.
	HTTPClient *http.Client
}

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

// SystemFacts are the identity and state of a computer system.
type SystemFacts struct {
	ID           string
	Manufacturer string
	Model        string
	SerialNumber string
	SKU          string
	BIOSVersion  string
	PowerState   string
	UUID         string
	HostName     string
}

// CPUInfo summarises the processors.
type CPUInfo struct {
	Count    int    // sockets
	Model    string // model of the first processor
	Arch     string // x86_64, aarch64, ppc64le, ... as Ironic names it
	SpeedMHz int
	Cores    int // total
	Threads  int // total
}

// NICInfo is one Ethernet interface.
type NICInfo struct {
	ID        string
	Name      string
	MAC       string // lower case
	SpeedGbps int
	LinkUp    bool
}

// Drive types, as Metal3 names them.
const (
	DriveHDD  = "HDD"
	DriveSSD  = "SSD"
	DriveNVMe = "NVME"
)

// DriveInfo is one storage drive.
type DriveInfo struct {
	ID         string
	Name       string
	SizeBytes  int64
	Model      string
	Vendor     string
	Serial     string
	Rotational bool
	Type       string // DriveHDD, DriveSSD or DriveNVMe
}

// BIOSAttribute is one BIOS setting with its registry entry.
type BIOSAttribute struct {
	Name          string
	Type          string // Enumeration, Integer, String, Boolean, Password; "" without registry
	AllowedValues []string
	LowerBound    *int64
	UpperBound    *int64
	MinLength     *int
	MaxLength     *int
	ReadOnly      bool
	ResetRequired bool
	CurrentValue  any
}

// BIOSInfo are the BIOS attributes; Registry is empty when the BMC did not
// publish the attribute registry (then only names and values are known).
type BIOSInfo struct {
	Registry   string
	Attributes []BIOSAttribute // sorted by name
}

// FirmwareComponent is one entry of the firmware inventory.
type FirmwareComponent struct {
	ID         string
	Name       string
	Version    string
	Updateable bool
	// URI is the inventory item's @odata.id (a SimpleUpdate target).
	URI string
}

// Inventory is everything ReadInventory learns about a system.
type Inventory struct {
	System    SystemFacts
	CPU       CPUInfo
	MemoryMiB int64
	NICs      []NICInfo
	Drives    []DriveInfo
	BIOS      BIOSInfo
	Firmware  []FirmwareComponent
}

// RedfishClient is a connection to one BMC; Close it to log out.
type RedfishClient struct {
	cfg      RedfishConfig
	endpoint string
	api      *gofish.APIClient
}

const (
	defaultRedfishTimeout = 30 * time.Second
	defaultRedfishRetries = 3
)

// ConnectRedfish opens a connection to the BMC (and a session if
// cfg.UseSession). The caller must Close it.
func ConnectRedfish(ctx context.Context, cfg RedfishConfig) (*RedfishClient, error) {
	endpoint, err := redfishBaseURL(cfg.Endpoint)
	if err != nil {
		return nil, &RedfishError{Endpoint: redactEndpoint(cfg.Endpoint), Op: "connect", Kind: ErrBMC, Detail: err.Error()}
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = newRedfishHTTPClient(cfg)
	}
	api, err := gofish.ConnectContext(ctx, gofish.ClientConfig{
		Endpoint:          endpoint,
		Username:          cfg.Username,
		Password:          cfg.Password,
		Insecure:          cfg.Insecure,
		HTTPClient:        hc,
		BasicAuth:         !cfg.UseSession,
		NoModifyTransport: true,
	})
	c := &RedfishClient{cfg: cfg, endpoint: endpoint}
	if err != nil {
		op := "connect"
		if cfg.UseSession {
			op = "connect and log in"
		}
		return nil, c.wrap(op, err)
	}
	c.api = api
	return c, nil
}

// Close logs out the session, if one was opened.
func (c *RedfishClient) Close() {
	if c == nil || c.api == nil {
		return
	}
	if c.cfg.UseSession {
		c.api.Logout()
	}
	c.api.HTTPClient.CloseIdleConnections()
}

// CheckCredentials checks that the BMC answers and accepts the credentials
// by reading the system (systemID may be empty when the BMC has one system).
func CheckCredentials(ctx context.Context, cfg RedfishConfig, systemID string) error {
	c, err := ConnectRedfish(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.system(systemID)
	return err
}

// ReadInventory reads facts, processors, memory, NICs, drives, BIOS
// attributes with their registry and the firmware inventory in one session.
func ReadInventory(ctx context.Context, cfg RedfishConfig, systemID string) (*Inventory, error) {
	c, err := ConnectRedfish(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Inventory(systemID)
}

// Inventory reads everything about systemID.
func (c *RedfishClient) Inventory(systemID string) (*Inventory, error) {
	sys, err := c.system(systemID)
	if err != nil {
		return nil, err
	}
	inv := &Inventory{System: systemFacts(sys)}
	if inv.CPU, err = c.cpus(sys); err != nil {
		return nil, err
	}
	if inv.MemoryMiB, err = c.memoryMiB(sys); err != nil {
		return nil, err
	}
	if inv.NICs, err = c.nics(sys); err != nil {
		return nil, err
	}
	if inv.Drives, err = c.drives(sys); err != nil {
		return nil, err
	}
	if inv.BIOS, err = c.bios(sys); err != nil {
		return nil, err
	}
	if inv.Firmware, err = c.firmware(sys); err != nil {
		return nil, err
	}
	return inv, nil
}

// SystemFacts reads the identity and power state of systemID.
func (c *RedfishClient) SystemFacts(systemID string) (SystemFacts, error) {
	sys, err := c.system(systemID)
	if err != nil {
		return SystemFacts{}, err
	}
	return systemFacts(sys), nil
}

// BIOS reads the BIOS attributes of systemID with their registry.
func (c *RedfishClient) BIOS(systemID string) (BIOSInfo, error) {
	sys, err := c.system(systemID)
	if err != nil {
		return BIOSInfo{}, err
	}
	return c.bios(sys)
}

// Firmware reads the firmware inventory that belongs to systemID.
func (c *RedfishClient) Firmware(systemID string) ([]FirmwareComponent, error) {
	sys, err := c.system(systemID)
	if err != nil {
		return nil, err
	}
	return c.firmware(sys)
}

// system reads the ComputerSystem; systemID is an Id, a
// /redfish/v1/Systems/{id} path, or empty for the only system.
func (c *RedfishClient) system(systemID string) (*schemas.ComputerSystem, error) {
	if systemID == "" {
		systems, err := c.api.Service.Systems()
		if err != nil {
			return nil, c.wrap("list systems", err)
		}
		if len(systems) != 1 {
			return nil, &RedfishError{Endpoint: c.endpoint, Op: "list systems", Kind: ErrNotFound,
				Detail: fmt.Sprintf("the BMC has %d systems; say which one", len(systems))}
		}
		return systems[0], nil
	}
	uri := systemID
	if !strings.HasPrefix(uri, "/") {
		uri = "/redfish/v1/Systems/" + url.PathEscape(systemID)
	}
	sys, err := schemas.GetComputerSystem(c.api, uri)
	if err != nil {
		return nil, c.wrap("read system "+systemID, err)
	}
	return sys, nil
}

func systemFacts(sys *schemas.ComputerSystem) SystemFacts {
	return SystemFacts{
		ID: sys.ID, Manufacturer: sys.Manufacturer, Model: sys.Model, SerialNumber: sys.SerialNumber,
		SKU: sys.SKU, BIOSVersion: sys.BiosVersion, PowerState: string(sys.PowerState),
		UUID: sys.UUID, HostName: sys.HostName,
	}
}

func (c *RedfishClient) cpus(sys *schemas.ComputerSystem) (CPUInfo, error) {
	procs, err := sys.Processors()
	if err != nil {
		return CPUInfo{}, c.wrap("read processors of "+sys.ID, err)
	}
	var info CPUInfo
	for _, p := range procs {
		if p.ProcessorType != "" && p.ProcessorType != schemas.CPUProcessorType {
			continue
		}
		info.Count++
		if info.Model == "" {
			info.Model = strings.TrimSpace(p.Model)
			info.Arch = cpuArch(string(p.ProcessorArchitecture), string(p.InstructionSet))
			switch {
			case p.MaxSpeedMHz != nil:
				info.SpeedMHz = *p.MaxSpeedMHz
			case p.OperatingSpeedMHz != nil:
				info.SpeedMHz = *p.OperatingSpeedMHz
			}
		}
		info.Cores += gofish.Deref(p.TotalCores)
		info.Threads += gofish.Deref(p.TotalThreads)
	}
	if info.Count == 0 {
		info.Count = int(gofish.Deref(sys.ProcessorSummary.Count))
		info.Model = sys.ProcessorSummary.Model
		info.Cores = int(gofish.Deref(sys.ProcessorSummary.CoreCount))
		info.Threads = int(gofish.Deref(sys.ProcessorSummary.LogicalProcessorCount))
	}
	return info, nil
}

// cpuArch names a Redfish architecture and instruction set as Ironic does.
func cpuArch(arch, isa string) string {
	switch isa {
	case "x86-64":
		return "x86_64"
	case "x86":
		return "i686"
	case "ARM-A64":
		return "aarch64"
	case "ARM-A32":
		return "arm"
	case "PowerISA":
		return "ppc64le"
	}
	switch arch {
	case "x86":
		return "x86_64"
	case "ARM":
		return "aarch64"
	case "Power":
		return "ppc64le"
	}
	return strings.ToLower(arch)
}

func (c *RedfishClient) memoryMiB(sys *schemas.ComputerSystem) (int64, error) {
	if gib := sys.MemorySummary.TotalSystemMemoryGiB; gib != nil && *gib > 0 {
		return int64(*gib * 1024), nil
	}
	mems, err := sys.Memory()
	if err != nil {
		return 0, c.wrap("read memory of "+sys.ID, err)
	}
	var total int64
	for _, m := range mems {
		total += int64(gofish.Deref(m.CapacityMiB))
	}
	return total, nil
}

func (c *RedfishClient) nics(sys *schemas.ComputerSystem) ([]NICInfo, error) {
	eths, err := sys.EthernetInterfaces()
	if err != nil {
		return nil, c.wrap("read Ethernet interfaces of "+sys.ID, err)
	}
	out := make([]NICInfo, 0, len(eths))
	for _, e := range eths {
		mac := e.MACAddress
		if mac == "" {
			mac = e.PermanentMACAddress
		}
		out = append(out, NICInfo{
			ID: e.ID, Name: e.Name, MAC: strings.ToLower(mac),
			SpeedGbps: gofish.Deref(e.SpeedMbps) / 1000,
			LinkUp:    e.LinkStatus == schemas.LinkUpLinkStatus,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (c *RedfishClient) drives(sys *schemas.ComputerSystem) ([]DriveInfo, error) {
	storages, err := sys.Storage()
	if err != nil {
		return nil, c.wrap("read storage of "+sys.ID, err)
	}
	var out []DriveInfo
	for _, st := range storages {
		drives, err := st.Drives()
		if err != nil {
			return nil, c.wrap("read drives of "+sys.ID, err)
		}
		for _, d := range drives {
			out = append(out, driveInfo(d))
		}
	}
	if len(out) == 0 {
		simple, err := sys.SimpleStorage()
		if err != nil {
			return nil, c.wrap("read simple storage of "+sys.ID, err)
		}
		for _, ss := range simple {
			for _, dev := range ss.Devices {
				out = append(out, DriveInfo{
					ID: dev.Name, Name: dev.Name, SizeBytes: int64(gofish.Deref(dev.CapacityBytes)),
					Model: dev.Model, Vendor: dev.Manufacturer,
				})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func driveInfo(d *schemas.Drive) DriveInfo {
	info := DriveInfo{
		ID: d.ID, Name: d.Name, SizeBytes: int64(gofish.Deref(d.CapacityBytes)),
		Model: d.Model, Vendor: d.Manufacturer, Serial: d.SerialNumber,
		Rotational: d.MediaType == schemas.HDDMediaType || gofish.Deref(d.RotationSpeedRPM) > 0,
	}
	switch {
	case d.Protocol == schemas.NVMeProtocol:
		info.Type = DriveNVMe
	case d.MediaType == schemas.SSDMediaType:
		info.Type = DriveSSD
	case info.Rotational:
		info.Type = DriveHDD
	}
	return info
}

func (c *RedfishClient) bios(sys *schemas.ComputerSystem) (BIOSInfo, error) {
	b, err := sys.Bios()
	if err != nil {
		return BIOSInfo{}, c.wrap("read BIOS of "+sys.ID, err)
	}
	if b == nil {
		return BIOSInfo{}, nil
	}
	reg, err := c.attributeRegistry(b.AttributeRegistry)
	if err != nil {
		return BIOSInfo{}, err
	}
	info := BIOSInfo{}
	seen := map[string]bool{}
	if reg != nil {
		info.Registry = b.AttributeRegistry
		for _, a := range reg.RegistryEntries.Attributes {
			if a.AttributeName == "" || a.Hidden {
				continue
			}
			current, ok := b.Attributes[a.AttributeName]
			if !ok {
				current = a.CurrentValue
			}
			seen[a.AttributeName] = true
			info.Attributes = append(info.Attributes, registryAttribute(a, current))
		}
	}
	for name, v := range b.Attributes {
		if !seen[name] {
			info.Attributes = append(info.Attributes, BIOSAttribute{Name: name, CurrentValue: v})
		}
	}
	sort.Slice(info.Attributes, func(i, j int) bool { return info.Attributes[i].Name < info.Attributes[j].Name })
	return info, nil
}

func registryAttribute(a schemas.Attributes, current any) BIOSAttribute {
	out := BIOSAttribute{
		Name: a.AttributeName, Type: string(a.Type), ReadOnly: a.ReadOnly || a.Immutable,
		ResetRequired: a.ResetRequired, CurrentValue: current,
		MinLength: a.MinLength, MaxLength: a.MaxLength,
	}
	for _, v := range a.Value {
		out.AllowedValues = append(out.AllowedValues, v.ValueName)
	}
	if a.LowerBound != nil {
		v := int64(*a.LowerBound)
		out.LowerBound = &v
	}
	if a.UpperBound != nil {
		v := int64(*a.UpperBound)
		out.UpperBound = &v
	}
	return out
}

// attributeRegistry finds the registry named by Bios.AttributeRegistry in
// the Registries collection; nil when the BMC does not publish it.
func (c *RedfishClient) attributeRegistry(name string) (*schemas.AttributeRegistry, error) {
	if name == "" {
		return nil, nil
	}
	files, err := c.api.Service.Registries()
	if err != nil {
		if isStatus(err, http.StatusNotFound) {
			return nil, nil
		}
		return nil, c.wrap("list registries", err)
	}
	base, _, _ := strings.Cut(name, ".")
	for _, f := range files {
		if f.ID != name && f.Registry != name && f.ID != base {
			continue
		}
		uri := ""
		for _, loc := range f.Location {
			if loc.URI != "" && (uri == "" || strings.HasPrefix(loc.Language, "en")) {
				uri = loc.URI
			}
		}
		if uri == "" || !strings.HasPrefix(uri, "/") {
			return nil, nil
		}
		reg, err := schemas.GetAttributeRegistry(c.api, uri)
		if err != nil {
			return nil, c.wrap("read BIOS attribute registry "+name, err)
		}
		return reg, nil
	}
	return nil, nil
}

func (c *RedfishClient) firmware(sys *schemas.ComputerSystem) ([]FirmwareComponent, error) {
	us, err := c.api.Service.UpdateService()
	if err != nil {
		return nil, c.wrap("read update service", err)
	}
	if us == nil {
		return nil, nil
	}
	items, err := us.FirmwareInventory()
	if err != nil {
		return nil, c.wrap("read firmware inventory", err)
	}
	// A BMC serving several systems relates each component to its owner.
	owners := map[string]bool{strings.TrimSuffix(sys.ODataID, "/"): true}
	var raw struct {
		Links struct {
			ManagedBy, Chassis []struct {
				ID string `json:"@odata.id"`
			}
		}
	}
	if json.Unmarshal(sys.RawData, &raw) == nil {
		for _, l := range append(raw.Links.ManagedBy, raw.Links.Chassis...) {
			owners[strings.TrimSuffix(l.ID, "/")] = true
		}
	}
	var out []FirmwareComponent
	for _, it := range items {
		if related := relatedItems(it.RawData); len(related) > 0 && !anyOwned(related, owners) {
			continue
		}
		out = append(out, FirmwareComponent{ID: it.ID, Name: it.Name, Version: it.Version, Updateable: it.Updateable, URI: it.ODataID})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func relatedItems(raw []byte) []string {
	var v struct {
		RelatedItem []struct {
			ID string `json:"@odata.id"`
		}
	}
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	for _, r := range v.RelatedItem {
		out = append(out, strings.TrimSuffix(r.ID, "/"))
	}
	return out
}

func anyOwned(related []string, owners map[string]bool) bool {
	for _, r := range related {
		if owners[r] {
			return true
		}
	}
	return false
}

// --- transport ---

// newRedfishHTTPClient builds a client whose own *http.Transport carries the
// TLS settings (gofish would ignore Insecure for a wrapped transport) and
// retries around it.
func newRedfishHTTPClient(cfg RedfishConfig) *http.Client {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = defaultRedfishTimeout
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = defaultRedfishRetries
	case retries < 0:
		retries = 0
	}
	waitMax := cfg.RetryWaitMax
	if waitMax <= 0 {
		waitMax = 5 * time.Second
	}
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: min(timeout, 10*time.Second), KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.Insecure, RootCAs: cfg.RootCAs}, //nolint:gosec // user's choice
		TLSHandshakeTimeout:   min(timeout, 10*time.Second),
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	rc := &retryablehttp.Client{
		HTTPClient:   &http.Client{Transport: transport, Timeout: timeout},
		RetryWaitMin: min(200*time.Millisecond, waitMax),
		RetryWaitMax: waitMax,
		RetryMax:     retries,
		CheckRetry:   redfishRetryPolicy,
		Backoff:      redfishBackoff,
		// Hand the last answer to gofish, which turns it into an error
		// carrying the BMC's status and message.
		ErrorHandler: func(resp *http.Response, err error, _ int) (*http.Response, error) {
			if resp != nil {
				return resp, nil
			}
			return nil, err
		},
	}
	return &http.Client{Transport: &retryablehttp.RoundTripper{Client: rc}}
}

// redfishRetryPolicy retries connection errors (not TLS verification
// failures), 429 and 5xx except 501, while ctx lasts.
func redfishRetryPolicy(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		return !tlsverify.Failed(err), nil
	}
	code := resp.StatusCode
	return code == http.StatusTooManyRequests || (code >= 500 && code != http.StatusNotImplemented), nil
}

// redfishBackoff is capped exponential backoff with full jitter, honouring
// Retry-After (capped too) on 429 and 503.
func redfishBackoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs >= 0 {
			return min(time.Duration(secs)*time.Second, maxWait)
		}
	}
	ceiling := minWait << min(attempt, 20)
	if ceiling <= 0 || ceiling > maxWait {
		ceiling = maxWait
	}
	return minWait/2 + rand.N(ceiling-minWait/2+1)
}

// redfishBaseURL reduces an endpoint to scheme://host[:port].
func redfishBaseURL(endpoint string) (string, error) {
	u, err := url.Parse(strings.TrimPrefix(strings.TrimPrefix(endpoint, "redfish+"), "idrac-"))
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("endpoint must be an http(s) URL with a host")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("endpoint scheme must be http or https, not %q", u.Scheme)
	}
	return u.Scheme + "://" + u.Host, nil
}

func redactEndpoint(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	return endpoint
}

// wrap classifies err into a RedfishError.
func (c *RedfishClient) wrap(op string, err error) error {
	e := &RedfishError{Endpoint: c.endpoint, Op: op, Kind: ErrBMC}
	var rf *schemas.Error
	var netErr net.Error
	switch {
	case errors.As(err, &rf) && rf.HTTPReturnedStatusCode != 0:
		e.Status = rf.HTTPReturnedStatusCode
		e.Detail = redfishMessage(rf)
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

func redfishMessage(rf *schemas.Error) string {
	msg := rf.Message
	for _, info := range rf.ExtendedInfos {
		if info.Message != "" && info.Message != msg {
			msg = strings.TrimSpace(msg + " " + info.Message)
		}
	}
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	return msg
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
