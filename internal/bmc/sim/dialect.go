package sim

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Dialects: how a simulated BMC words its answers (Profile.Dialect). The
// resources are the same; the shapes differ the way real BMCs differ.
const (
	// DialectDMTF (the default) answers in the plain shapes of the DMTF
	// mockups: error bodies carry MessageId and Message.
	DialectDMTF = ""
	// DialectILO answers as HPE iLO does: every @odata.id lower-case with a
	// trailing slash, error bodies whose @Message.ExtendedInfo carries only
	// MessageId and MessageArgs (the text is in the message registries it
	// serves), a reset to the power state the system is in refused with
	// 400 InvalidOperationForSystemState, and NICs without a Name.
	DialectILO = "ilo"
	// DialectIDRAC answers as Dell iDRAC does: error bodies with a
	// GeneralError code and full ExtendedInfo (Message, MessageArgs,
	// Resolution), a reset to the power state the system is in refused with
	// 409 and PSU501/PSU502, and every NIC named "System Ethernet Interface".
	DialectIDRAC = "idrac"
	// DialectSupermicro answers as Supermicro BMCs do: error codes in the
	// "Base.v1_4_0.<key>" form with a capitalised "Message".
	DialectSupermicro = "supermicro"
)

// iLO's own message registry (its Registries collection serves it; error
// bodies name only the MessageId). The texts are the simulator's own.
const iloRegistry = "iLO.2.14"

var iloMessages = map[string]struct {
	Message string
	Args    int
}{
	"InvalidOperationForSystemState": {"The operation cannot be carried out in the system's current power state (%1).", 1},
	"UpdateServiceBusy":              {"The firmware update service cannot take the request now: %1.", 1},
	"PropertyNotWritableOrUnknown":   {"The property %1 is read-only or not one of the resource's properties.", 1},
	"UnauthorizedLoginAttempt":       {"The login was not successful, because the supplied credentials could not be authenticated.", 0},
}

type dialectKey struct{}

// dialectOf is the dialect of the system a request is addressed to (set by
// the handler).
func dialectOf(r *http.Request) string {
	d, _ := r.Context().Value(dialectKey{}).(string)
	return d
}

// dialectWriter carries the dialect to writeError, which has no request.
type dialectWriter struct {
	http.ResponseWriter
	dialect string
}

func (w dialectWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func dialectOfWriter(w http.ResponseWriter) string {
	if dw, ok := w.(dialectWriter); ok {
		return dw.dialect
	}
	return DialectDMTF
}

// canonicalSegments map the lower-case spelling of every fixed path
// segment to the one the routes use, so that a client following iLO's
// lower-case links reaches the same handlers.
var canonicalSegments = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		"SessionService", "Sessions", "Systems", "Actions", "ComputerSystem.Reset", "Processors", "Memory",
		"EthernetInterfaces", "SimpleStorage", "Storage", "Drives", "Bios", "Settings", "Bios.ResetBios",
		"Bios.ChangePassword", "Managers", "Manager.Reset", "VirtualMedia", "VirtualMedia.InsertMedia",
		"VirtualMedia.EjectMedia", "Chassis", "Registries", "UpdateService", "FirmwareInventory",
		"UpdateService.SimpleUpdate", "TaskService", "Tasks", "Monitor",
	} {
		m[strings.ToLower(s)] = s
	}
	return m
}()

// canonicalPath spells the fixed segments of a Redfish path as the routes
// do (ids are left as they are: their handlers compare them without case).
func canonicalPath(p string) string {
	if !strings.HasPrefix(p, v1) && !strings.HasPrefix(strings.ToLower(p), v1) {
		return p
	}
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if c, ok := canonicalSegments[strings.ToLower(s)]; ok {
			parts[i] = c
		} else if i <= 2 {
			parts[i] = strings.ToLower(s) // "redfish", "v1"
		}
	}
	return strings.Join(parts, "/")
}

// iloLinks rewrites every link of an answer as iLO spells them: lower
// case, with a trailing slash (before a fragment, none is added).
func iloLinks(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for k, val := range t {
				if s, ok := val.(string); ok && (k == "@odata.id" || k == "target" || k == "Uri" || k == "TaskMonitor") &&
					strings.HasPrefix(s, "/redfish/") {
					s = strings.ToLower(s)
					if !strings.Contains(s, "#") && !strings.HasSuffix(s, "/") {
						s += "/"
					}
					t[k] = s
					continue
				}
				walk(val)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(out)
	return out
}

// errorBody is the error answer of a dialect: messageID and msg are what
// happened, args its MessageArgs.
func errorBody(dialect, messageID, msg string, args []string) map[string]any {
	if args == nil {
		args = []string{}
	}
	switch dialect {
	case DialectILO:
		info := map[string]any{"MessageId": messageID}
		if len(args) > 0 {
			info["MessageArgs"] = args
		}
		return map[string]any{"error": map[string]any{
			"code":                  "iLO.0.10.ExtendedInfo",
			"message":               "See @Message.ExtendedInfo for more information.",
			"@Message.ExtendedInfo": []map[string]any{info},
		}}
	case DialectIDRAC:
		return map[string]any{"error": map[string]any{
			"code":    "Base.1.12.GeneralError",
			"message": "A general error has occurred. See ExtendedInfo for more information",
			"@Message.ExtendedInfo": []map[string]any{{
				"Message": msg, "MessageArgs": args, "MessageId": messageID, "RelatedProperties": []string{},
				"Resolution": "Correct the request and retry the operation.", "Severity": "Warning",
			}},
		}}
	case DialectSupermicro:
		return map[string]any{"error": map[string]any{
			"code":    "Base.v1_4_0.GeneralError",
			"Message": "A general error has occurred. See ExtendedInfo for more information.",
			"@Message.ExtendedInfo": []map[string]any{{
				"MessageId": supermicroID(messageID), "Severity": "Warning",
				"Resolution": "Correct the request and resubmit it.", "Message": msg, "MessageArgs": args,
				"RelatedProperties": []string{},
			}},
		}}
	}
	return map[string]any{"error": map[string]any{
		"code":    messageID,
		"message": msg,
		"@Message.ExtendedInfo": []map[string]any{{
			"@odata.type": "#Message.v1_1_1.Message",
			"MessageId":   messageID,
			"Message":     msg,
			"MessageArgs": args,
			"Severity":    "Warning",
		}},
	}}
}

// supermicroID spells a Base message id as Supermicro does:
// "Base.1.8.PropertyUnknown" -> "Base.v1_4_0.PropertyUnknown".
func supermicroID(id string) string {
	if rest, ok := strings.CutPrefix(id, "Base."); ok {
		if i := strings.LastIndex(rest, "."); i >= 0 {
			return "Base.v1_4_0." + rest[i+1:]
		}
	}
	return id
}

// iloMessage is one of iLO's own errors, for writeErrorArgs.
func iloMessageID(key string) string { return iloRegistry + "." + key }

// messageRegistryJSON is the body of iLO's message registry.
func iloRegistryJSON(uri string) map[string]any {
	msgs := map[string]any{}
	for k, m := range iloMessages {
		types := make([]string, m.Args)
		for i := range types {
			types[i] = "string"
		}
		msgs[k] = map[string]any{
			"Description": m.Message, "Message": m.Message, "NumberOfArgs": m.Args, "ParamTypes": types,
			"Severity": "Warning", "Resolution": "None.",
		}
	}
	return map[string]any{
		"@odata.id":       uri,
		"@odata.type":     "#MessageRegistry.v1_0_0.MessageRegistry",
		"Id":              iloRegistry,
		"Name":            "iLO Message Registry",
		"Language":        "en",
		"OwningEntity":    "HPE",
		"RegistryPrefix":  "iLO",
		"RegistryVersion": "2.14.0",
		"Messages":        msgs,
	}
}

// refuseUpdate answers SimpleUpdate under Faults.RefuseUpdates, in the
// dialect's own words.
func refuseUpdate(w http.ResponseWriter, dialect string) {
	switch dialect {
	case DialectILO:
		writeErrorArgs(w, http.StatusBadRequest, iloMessageID("UpdateServiceBusy"), "",
			"another firmware update is in progress")
	case DialectSupermicro:
		writeErrorArgs(w, http.StatusBadRequest, "SMC.1.0.OemLicenseNotPassed",
			"The request needs a license the BMC does not have: SFT-OOB-LIC.", "SFT-OOB-LIC")
	default:
		writeError(w, http.StatusBadRequest, "Base.1.12.ResourceInUse",
			"The change to the requested resource failed because the resource is in use or in transition.")
	}
}

// refuseReset answers a reset the dialect refuses in the system's power
// state (a reset to the state it is in), reporting whether it did; s.mu
// held.
func refuseReset(w http.ResponseWriter, dialect, kind, power string) bool {
	same := (power == PowerOn && (kind == "On" || kind == "ForceOn")) ||
		(power == PowerOff && (kind == "ForceOff" || kind == "GracefulShutdown"))
	switch dialect {
	case DialectILO:
		if same || (power == PowerOff && (kind == "ForceRestart" || kind == "GracefulRestart" || kind == "PowerCycle")) {
			writeErrorArgs(w, http.StatusBadRequest, iloMessageID("InvalidOperationForSystemState"), "",
				"Power is "+strings.ToLower(power))
			return true
		}
	case DialectIDRAC:
		if same {
			id, msg := "IDRAC.2.8.PSU502", "Server is already powered ON."
			if power == PowerOff {
				id, msg = "IDRAC.2.8.PSU501", "Server is already powered OFF."
			}
			writeError(w, http.StatusConflict, id, msg)
			return true
		}
	}
	return false
}

// nicName is the Name a dialect gives an Ethernet interface.
func nicName(dialect, id string) string {
	switch dialect {
	case DialectILO:
		return ""
	case DialectIDRAC:
		return "System Ethernet Interface"
	}
	return id
}
