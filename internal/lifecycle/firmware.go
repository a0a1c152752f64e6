package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Where a host's BIOS schema came from (BIOS.SchemaSource).
const (
	SchemaSourceIronic  = "ironic"  // GET /v1/nodes/{id}/bios?detail=True (API 1.74+)
	SchemaSourceRedfish = "redfish" // the BMC's Redfish AttributeRegistry
	SchemaSourceNone    = "none"    // no registry: values are passed through
)

// BIOS attribute types, as Ironic and the Redfish registry name them.
const (
	AttrEnumeration = "Enumeration"
	AttrString      = "String"
	AttrInteger     = "Integer"
	AttrBoolean     = "Boolean"
	AttrPassword    = "Password"
)

// BIOSSetting is one BIOS setting with its current value and, when a
// schema is known, its registry entry (BMO's FirmwareSchema SettingSchema).
type BIOSSetting struct {
	Name  string
	Value string
	// Type is "" when no schema is known.
	Type            string
	AllowableValues []string
	LowerBound      *int64
	UpperBound      *int64
	MinLength       *int64
	MaxLength       *int64
	ReadOnly        bool
	ResetRequired   bool
	// Locks are the registry's dependencies that make the setting
	// read-only or hidden while other settings have some values.
	Locks []BIOSLock
}

// BIOSLock is one dependency of the BIOS attribute registry: the setting
// is Property ("ReadOnly", "GrayOut" or "Hidden") while every condition
// holds (each joined to the ones before it with AND, or OR when Or).
type BIOSLock struct {
	Property string
	When     []BIOSCondition
}

// BIOSCondition compares the value of another setting with Value (as
// Ironic stores values: "True"/"False" for booleans): Condition is EQU,
// NEQ, GTR, GEQ, LSS or LEQ.
type BIOSCondition struct {
	Attribute string
	Condition string
	Value     string
	Or        bool
}

// BIOS is what a host's firmware settings look like now (BMO's
// HostFirmwareSettings status plus its FirmwareSchema).
type BIOS struct {
	// Settings by name. Names containing "Password" are dropped, as BMO
	// drops them.
	Settings map[string]BIOSSetting
	// SchemaSource is SchemaSourceIronic, SchemaSourceRedfish or
	// SchemaSourceNone.
	SchemaSource string
	// Driver is the node's Ironic driver (for the vendor mappings).
	Driver string
}

// Values returns the current value of every setting.
func (b *BIOS) Values() map[string]string {
	out := make(map[string]string, len(b.Settings))
	for n, s := range b.Settings {
		out[n] = s.Value
	}
	return out
}

// FirmwareFeatures says which firmware APIs the Ironic in use offers.
type FirmwareFeatures struct {
	// Microversion is the negotiated API version ("1.82").
	Microversion string
	// BIOSRegistry: GET /bios?detail=True (1.74+).
	BIOSRegistry bool
	// Components: GET /v1/nodes/{id}/firmware and firmware.update (1.86+).
	Components bool
	// Servicing: the "service" verb on active nodes (1.87+).
	Servicing bool
}

// ErrServicingUnsupported says that the Ironic API is older than 1.87, so a
// provisioned host's firmware cannot be changed without deprovisioning it.
var ErrServicingUnsupported = errors.New("changing the firmware settings of a provisioned host needs Ironic's servicing " +
	"(API 1.87 or newer); deprovision the host first (remove its baremetal_deployment), or use a newer Ironic")

// FirmwareCatalog reads what firmware settings and components need beyond
// state transitions. internal/ironic implements it.
type FirmwareCatalog interface {
	// BIOS reads a node's BIOS settings: with their registry from Ironic
	// when its BIOS interface fills it (API 1.74+), else from the BMC's
	// Redfish AttributeRegistry when redfish is given, else without one.
	// A missing node wraps ErrNotRegistered.
	BIOS(ctx context.Context, idOrName string, redfish *BMCAccess) (*BIOS, error)
	// Features says which firmware APIs Ironic offers.
	Features() FirmwareFeatures
	// Firmware lists a node's firmware components: from Ironic's
	// firmware API (1.86+) when it lists any, else from the BMC's Redfish
	// FirmwareInventory when redfish is given, else none.
	Firmware(ctx context.Context, idOrName string, redfish *BMCAccess) (*FirmwareInventory, error)
}

// Servicer is implemented by provisioners that can change a provisioned
// host through Ironic's servicing (BMO's Service).
type Servicer interface {
	// Service runs the service steps the spec needs (the firmware settings
	// that differ from Ironic's, or a BIOS factory reset) on an active
	// node: started reports that this call issued the verb. Below API
	// 1.87 it fails with ErrServicingUnsupported (wrapped).
	Service(ctx context.Context, h *Host, restartOnFailure bool) (res Result, started bool, err error)
}

// SettingError is one firmware setting the schema refuses.
type SettingError struct {
	Name    string
	Value   string
	Message string
}

func (e SettingError) Error() string {
	if strings.Contains(e.Name, "Password") { // never show a password
		return fmt.Sprintf("BIOS setting %q: %s", e.Name, e.Message)
	}
	return fmt.Sprintf("BIOS setting %q = %q: %s", e.Name, e.Value, e.Message)
}

// ValidateFirmwareSettings checks settings against the BIOS schema the way
// BMO's FirmwareSchema.ValidateSetting does (firmwareschema_types.go):
// names with "Password", unknown names, read-only settings, values outside
// an enumeration, integers out of bounds or not integers, strings of the
// wrong length, non-booleans for booleans and unknown types; and, beyond
// BMO, settings the registry's dependencies make read-only or hidden with
// the values the BIOS will have (the current ones with these settings
// applied), naming the setting that locks them. Without a schema
// (SchemaSourceNone, or b nil) only the Password rule applies. Errors are
// sorted by name.
func ValidateFirmwareSettings(settings map[string]string, b *BIOS) []SettingError {
	var errs []SettingError
	for _, name := range sortedKeys(settings) {
		value := settings[name]
		bad := func(format string, args ...any) {
			errs = append(errs, SettingError{Name: name, Value: value, Message: fmt.Sprintf(format, args...)})
		}
		if strings.Contains(name, "Password") {
			bad("settings whose name contains \"Password\" cannot be set")
			continue
		}
		if b == nil || b.SchemaSource == SchemaSourceNone {
			continue
		}
		s, ok := b.Settings[name]
		if !ok {
			bad("the host has no such BIOS setting (%d known: %s)", len(b.Settings), abbreviate(sortedKeys(b.Values()), 12))
			continue
		}
		if msg := checkSetting(s, value); msg != "" {
			bad("%s", msg)
			continue
		}
		if msg := lockedBy(s, b, settings); msg != "" {
			bad("%s", msg)
		}
	}
	return errs
}

// lockedBy says which dependency locks s with the values the BIOS will
// have, naming the controlling setting; "" when none does.
func lockedBy(s BIOSSetting, b *BIOS, settings map[string]string) string {
	valueOf := func(name string) (string, bool) {
		if v, ok := settings[name]; ok {
			return v, true
		}
		cur, ok := b.Settings[name]
		return cur.Value, ok
	}
	for _, l := range s.Locks {
		holds := false
		for i, c := range l.When {
			v, _ := valueOf(c.Attribute)
			ok := conditionHolds(v, c.Condition, c.Value)
			switch {
			case i == 0:
				holds = ok
			case c.Or:
				holds = holds || ok
			default:
				holds = holds && ok
			}
		}
		if !holds {
			continue
		}
		state := map[string]string{"ReadOnly": "read-only", "GrayOut": "read-only (greyed out)", "Hidden": "hidden"}[l.Property]
		var why, now []string
		for _, c := range l.When {
			why = append(why, fmt.Sprintf("%s %s %q", c.Attribute, conditionWords[c.Condition], c.Value))
			v, _ := valueOf(c.Attribute)
			now = append(now, fmt.Sprintf("%s = %q", c.Attribute, v))
		}
		return fmt.Sprintf("the setting is %s while %s (the BIOS registry makes it %s when %s): change %s in these "+
			"settings, or first", state, strings.Join(now, ", "), state, strings.Join(why, ", "), l.When[0].Attribute)
	}
	return ""
}

var conditionWords = map[string]string{"EQU": "is", "NEQ": "is not", "GTR": "is above", "GEQ": "is at least", "LSS": "is below", "LEQ": "is at most"}

// conditionHolds compares a setting's value with a dependency's: as
// numbers when both are, as booleans ignoring case, else as strings.
func conditionHolds(v, cond, want string) bool {
	a, errA := strconv.ParseFloat(strings.TrimSpace(v), 64)
	b, errB := strconv.ParseFloat(strings.TrimSpace(want), 64)
	if errA != nil || errB != nil {
		eq := v == want || (isBool(v) && isBool(want) && strings.EqualFold(v, want))
		return (cond == "EQU" && eq) || (cond == "NEQ" && !eq)
	}
	holds, ok := numberConditions[cond]
	return ok && holds(a, b)
}

// numberConditions compares two numbers as each registry condition does.
var numberConditions = map[string]func(a, b float64) bool{
	"EQU": func(a, b float64) bool { return a == b },
	"NEQ": func(a, b float64) bool { return a != b },
	"GTR": func(a, b float64) bool { return a > b },
	"GEQ": func(a, b float64) bool { return a >= b },
	"LSS": func(a, b float64) bool { return a < b },
	"LEQ": func(a, b float64) bool { return a <= b },
}

// checkSetting is one setting's rules; "" means valid.
func checkSetting(s BIOSSetting, value string) string {
	if s.ReadOnly {
		return "the setting is read-only"
	}
	switch s.Type {
	case AttrEnumeration:
		for _, v := range s.AllowableValues {
			if v == value {
				return ""
			}
		}
		return fmt.Sprintf("not one of the allowed values %s", quoteList(s.AllowableValues))
	case AttrInteger:
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return "not an integer" + bounds(s)
		}
		if (s.LowerBound != nil && n < *s.LowerBound) || (s.UpperBound != nil && n > *s.UpperBound) {
			return "out of bounds:" + bounds(s)
		}
	case AttrString:
		l := int64(len(value))
		if (s.MinLength != nil && l < *s.MinLength) || (s.MaxLength != nil && l > *s.MaxLength) {
			return fmt.Sprintf("length %d is outside the allowed length%s", l, lengths(s))
		}
	case AttrBoolean:
		if !isBool(value) {
			return "not a boolean: use \"true\" or \"false\""
		}
	case AttrPassword:
		return "password settings cannot be set"
	case "":
		// A setting Ironic lists without a type (some BIOS interfaces
		// fill the registry for some settings only): passed through.
	default:
		return fmt.Sprintf("unknown setting type %q", s.Type)
	}
	return ""
}

func bounds(s BIOSSetting) string {
	switch {
	case s.LowerBound != nil && s.UpperBound != nil:
		return fmt.Sprintf(" allowed %d to %d", *s.LowerBound, *s.UpperBound)
	case s.LowerBound != nil:
		return fmt.Sprintf(" allowed %d or more", *s.LowerBound)
	case s.UpperBound != nil:
		return fmt.Sprintf(" allowed %d or less", *s.UpperBound)
	}
	return ""
}

func lengths(s BIOSSetting) string {
	lo, hi := "0", "unbounded"
	if s.MinLength != nil {
		lo = strconv.FormatInt(*s.MinLength, 10)
	}
	if s.MaxLength != nil {
		hi = strconv.FormatInt(*s.MaxLength, 10)
	}
	return fmt.Sprintf(" (%s to %s characters)", lo, hi)
}

func isBool(v string) bool {
	return strings.EqualFold(v, "true") || strings.EqualFold(v, "false")
}

// SettingEqual compares a wanted value with the current one as the BIOS
// means them: booleans ignore case (Ironic stores "True"), integers ignore
// leading zeros and spaces; everything else is compared exactly.
func SettingEqual(s BIOSSetting, want string) bool {
	if s.Value == want {
		return true
	}
	switch {
	case isBool(want) && isBool(s.Value) && (s.Type == AttrBoolean || s.Type == ""):
		return strings.EqualFold(want, s.Value)
	case s.Type == AttrInteger:
		a, errA := strconv.ParseInt(strings.TrimSpace(want), 10, 64)
		b, errB := strconv.ParseInt(strings.TrimSpace(s.Value), 10, 64)
		return errA == nil && errB == nil && a == b
	}
	return false
}

// FirmwareDiff returns the wanted settings whose value differs from the
// current one (all of them when b is nil): BMO sends only those.
func FirmwareDiff(want map[string]string, b *BIOS) map[string]string {
	out := map[string]string{}
	for n, v := range want {
		if b != nil {
			if cur, ok := b.Settings[n]; ok && SettingEqual(cur, v) {
				continue
			}
		}
		out[n] = v
	}
	return out
}

// ServiceFirmware changes a provisioned host's firmware through Ironic's
// servicing (BMO's Service action, SVC ironicProvisioner.Service): the host stays
// provisioned, and a failure is a servicing error naming the host, the
// verb and Ironic's last_error. retries bounds how often a failed
// servicing is retried.
func (m *Machine) ServiceFirmware(ctx context.Context, h *Host, retries int) error {
	if err := m.serviceFirmware(ctx, h, retries); err != nil {
		return m.withHistory(ctx, err)
	}
	return nil
}

func (m *Machine) serviceFirmware(ctx context.Context, h *Host, retries int) error {
	svc, ok := m.Prov.(Servicer)
	if !ok {
		return m.hostError(h, StepResult{}, ErrServicingUnsupported)
	}
	since := m.now()
	failures := 0
	pending := true
	var st stepClock
	for {
		if err := ctx.Err(); err != nil {
			return m.waitError(h, StepResult{Result: Result{Verb: "service"}}, since, err)
		}
		retrying := h.Status.ErrorType == ServicingError
		res, started, err := svc.Service(ctx, h, retrying)
		r := StepResult{Result: res}
		st.observe(m.currentStep(h), m.now())
		var d time.Duration
		switch {
		case errors.Is(err, ErrServicingUnsupported):
			return m.hostError(h, r, err)
		case err != nil:
			return m.hostError(h, r, err)
		case res.ErrorMessage != "":
			h.Status.ErrorType, h.Status.ErrorMessage = ServicingError, res.ErrorMessage
			h.Status.OperationalStatus = OperationalError
			h.Status.ErrorCount++
			failures++
			if failures > retries {
				return m.hostError(h, r, nil)
			}
			d = m.Backoff(h.Status.ErrorCount)
			m.log(ctx, "retrying servicing after a failure", map[string]any{
				"host": h.Spec.Name, "id": h.Status.ID, "error": res.ErrorMessage, "backoff": d.String(),
			})
		case started:
			// Recorded once started, as Prepare does, so the next pass
			// waits instead of starting it again.
			pending = false
			h.Status.AppliedFirmware = cloneMap(h.Spec.FirmwareSettings)
			h.Status.FirmwareResetDone = h.Spec.FirmwareReset
			h.Status.FirmwareUpdatesDone = len(h.Spec.FirmwareUpdates) > 0
			h.Status.StepsDone = len(h.Spec.Steps) > 0
			h.Status.ErrorType, h.Status.ErrorMessage, h.Status.ErrorCount = NoError, "", 0
			h.Status.OperationalStatus = OperationalServicing
			d = requeueFor(res)
		case !res.Dirty:
			if pending {
				h.Status.AppliedFirmware = cloneMap(h.Spec.FirmwareSettings)
				h.Status.FirmwareResetDone = h.Spec.FirmwareReset
				h.Status.FirmwareUpdatesDone = len(h.Spec.FirmwareUpdates) > 0
				h.Status.StepsDone = len(h.Spec.Steps) > 0
			}
			h.Status.OperationalStatus = OperationalOK
			return nil
		default:
			d = requeueFor(res)
		}
		m.log(ctx, "waiting for servicing", st.fields(m.now(), map[string]any{
			"host": h.Spec.Name, "id": h.Status.ID, "provision_state": res.ProvisionState,
			"waited": m.now().Sub(since).String(), "next_check": d.String(),
		}))
		if err := m.waiter().Wait(ctx, h.Status.ID, d); err != nil {
			return m.waitError(h, r, since, err)
		}
	}
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func abbreviate(vs []string, n int) string {
	if len(vs) <= n {
		return strings.Join(vs, ", ")
	}
	return strings.Join(vs[:n], ", ") + fmt.Sprintf(", ... (%d more)", len(vs)-n)
}

// Where a host's firmware components came from (FirmwareInventory.Source).
const (
	FirmwareSourceIronic  = "ironic"  // GET /v1/nodes/{id}/firmware (API 1.86+)
	FirmwareSourceRedfish = "redfish" // the BMC's UpdateService FirmwareInventory
	FirmwareSourceNone    = "none"
)

// FirmwareComponent is one firmware component of a host.
type FirmwareComponent struct {
	// ID is Ironic's component name ("bios", "bmc") or the Redfish
	// inventory item's Id.
	ID         string
	Name       string
	Version    string
	Updateable bool
	// RelatedTo are the Redfish resources the component belongs to (its
	// RelatedItem links: the system, a manager, a drive, a NIC, ...);
	// empty from Ironic's firmware API.
	RelatedTo []string
}

// FirmwareInventory is BMO's HostFirmwareComponents status: the
// components with their versions, and the BIOS version.
type FirmwareInventory struct {
	Source      string
	BIOSVersion string
	Components  []FirmwareComponent
}
