package sim

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Faults are misbehaviours injected into one system. The zero value is a
// healthy BMC. They apply to requests addressed to that system: its
// /Systems, /Managers and /Chassis resources on the shared listener, and
// every request on the system's own listener (Options.PerSystemListeners).
type Faults struct {
	// WrongCredentials rejects every authentication with 401, as if the
	// configured password were wrong.
	WrongCredentials bool `json:"wrong_credentials,omitempty"`
	// ErrorBurst answers the next ErrorBurst requests with ErrorStatus
	// (default 500); it counts down as requests arrive.
	ErrorBurst  int `json:"error_burst,omitempty"`
	ErrorStatus int `json:"error_status,omitempty"`
	// Delay holds every request this long before answering it.
	Delay time.Duration `json:"-"`
	// PowerStuck accepts ComputerSystem.Reset but never changes the power
	// state (nor applies pending BIOS settings).
	PowerStuck bool `json:"power_stuck,omitempty"`
	// Unreachable drops every connection without an answer.
	Unreachable bool `json:"unreachable,omitempty"`
	// UpdateFailure, when set, makes the system's firmware update tasks
	// (UpdateService.SimpleUpdate) end in TaskState Exception with this
	// message, leaving the version unchanged.
	UpdateFailure string `json:"update_failure,omitempty"`
	// UpdateTaskPolls, when positive, is how many polls the system's update
	// tasks answer Running (PercentComplete moving up) before they end,
	// instead of Options.TaskPolls: a slow update.
	UpdateTaskPolls int `json:"update_task_polls,omitempty"`
	// UpdateAtBoot makes the system's update tasks stage the image, as
	// BMCs do for BIOS and device firmware: after their polls they stay
	// Pending ("applies at the next boot") until the system boots (a reset
	// that powers it on), then complete on the next poll.
	UpdateAtBoot bool `json:"update_at_boot,omitempty"`
	// PowerOffAfterUpdate makes a system whose staged update (UpdateAtBoot)
	// was applied at boot power itself off when the task completes, as
	// servers do that shut down after flashing their ROM.
	PowerOffAfterUpdate bool `json:"power_off_after_update,omitempty"`
	// RefuseUpdates answers SimpleUpdate with 400 and the dialect's own
	// refusal (iLO: update service busy; iDRAC: resource in use;
	// Supermicro: a license missing).
	RefuseUpdates bool `json:"refuse_updates,omitempty"`
	// MediaFailure, when set, makes the system's VirtualMedia.InsertMedia
	// (and a PATCH inserting an image) fail with HTTP 500 and this message,
	// leaving the device as it was.
	MediaFailure string `json:"media_failure,omitempty"`
	// DriveHealth sets the Redfish Status.Health of the system's drives,
	// by drive name ("sda": "Critical"); FanHealth that of the chassis'
	// fan (Chassis/{id}/Thermal, Fans[0]). Either rolls up into the
	// System's and the Chassis' Status.HealthRollup, the worst of OK,
	// Warning and Critical, as a failed drive or fan does on a real BMC.
	DriveHealth map[string]string `json:"drive_health,omitempty"`
	FanHealth   string            `json:"fan_health,omitempty"`
}

type faultsJSON struct {
	WrongCredentials bool              `json:"wrong_credentials,omitempty"`
	ErrorBurst       int               `json:"error_burst,omitempty"`
	ErrorStatus      int               `json:"error_status,omitempty"`
	DelayMS          int64             `json:"delay_ms,omitempty"`
	PowerStuck       bool              `json:"power_stuck,omitempty"`
	Unreachable      bool              `json:"unreachable,omitempty"`
	UpdateFailure    string            `json:"update_failure,omitempty"`
	UpdateTaskPolls  int               `json:"update_task_polls,omitempty"`
	UpdateAtBoot     bool              `json:"update_at_boot,omitempty"`
	PowerOffAfter    bool              `json:"power_off_after_update,omitempty"`
	RefuseUpdates    bool              `json:"refuse_updates,omitempty"`
	MediaFailure     string            `json:"media_failure,omitempty"`
	DriveHealth      map[string]string `json:"drive_health,omitempty"`
	FanHealth        string            `json:"fan_health,omitempty"`
}

// MarshalJSON writes Delay as delay_ms (milliseconds).
func (f Faults) MarshalJSON() ([]byte, error) {
	return json.Marshal(faultsJSON{
		WrongCredentials: f.WrongCredentials, ErrorBurst: f.ErrorBurst, ErrorStatus: f.ErrorStatus,
		DelayMS: f.Delay.Milliseconds(), PowerStuck: f.PowerStuck, Unreachable: f.Unreachable,
		UpdateFailure: f.UpdateFailure, UpdateTaskPolls: f.UpdateTaskPolls, UpdateAtBoot: f.UpdateAtBoot,
		PowerOffAfter: f.PowerOffAfterUpdate, RefuseUpdates: f.RefuseUpdates, MediaFailure: f.MediaFailure,
		DriveHealth: f.DriveHealth, FanHealth: f.FanHealth,
	})
}

// UnmarshalJSON reads Delay from delay_ms (milliseconds).
func (f *Faults) UnmarshalJSON(b []byte) error {
	var j faultsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = Faults{
		WrongCredentials: j.WrongCredentials, ErrorBurst: j.ErrorBurst, ErrorStatus: j.ErrorStatus,
		Delay: time.Duration(j.DelayMS) * time.Millisecond, PowerStuck: j.PowerStuck, Unreachable: j.Unreachable,
		UpdateFailure: j.UpdateFailure, UpdateTaskPolls: j.UpdateTaskPolls, UpdateAtBoot: j.UpdateAtBoot,
		PowerOffAfterUpdate: j.PowerOffAfter, RefuseUpdates: j.RefuseUpdates, MediaFailure: j.MediaFailure,
		DriveHealth: j.DriveHealth, FanHealth: j.FanHealth,
	}
	return nil
}

// applyFaults runs the transport-level faults of sys (delay, unreachable,
// error burst) for one request. It reports whether the request was answered
// (or dropped) and must not be handled further.
func (s *Server) applyFaults(w http.ResponseWriter, r *http.Request, sys *system) bool {
	s.mu.Lock()
	sys.requests++
	f := sys.faults
	burst := false
	if sys.faults.ErrorBurst > 0 {
		sys.faults.ErrorBurst--
		burst = true
	}
	s.mu.Unlock()

	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return true
		case <-s.done:
			t.Stop()
			return true
		}
	}
	if f.Unreachable {
		dropConnection(w)
		return true
	}
	if burst {
		status := f.ErrorStatus
		if status == 0 {
			status = http.StatusInternalServerError
		}
		writeError(w, status, "Base.1.8.InternalError", "injected fault: error burst")
		return true
	}
	return s.applyMediaFaults(w, r, sys, f)
}

// dropConnection closes the client's connection without an answer.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// healthRank orders Redfish health values; anything else counts as OK.
var healthRank = map[string]int{"OK": 0, "Warning": 1, "Critical": 2}

// driveHealth is the Status.Health of the system's drive (OK unless a
// fault says otherwise).
func (f Faults) driveHealth(drive string) string {
	for name, h := range f.DriveHealth {
		if strings.EqualFold(name, drive) && h != "" {
			return h
		}
	}
	return "OK"
}

// fanHealth is the Status.Health of the chassis' fan.
func (f Faults) fanHealth() string {
	if f.FanHealth == "" {
		return "OK"
	}
	return f.FanHealth
}

// healthRollup is the worst health of the system's drives and fan: its
// System's and Chassis' Status.HealthRollup.
func (f Faults) healthRollup() string {
	worst := f.fanHealth()
	for _, h := range f.DriveHealth {
		if healthRank[h] > healthRank[worst] {
			worst = h
		}
	}
	return worst
}

// statusOf is a resource's Status with Health h.
func statusOf(h string) map[string]any { return map[string]any{"State": "Enabled", "Health": h} }

// rollupStatus is a System's or Chassis' Status: its own Health OK and
// HealthRollup what its components say.
func rollupStatus(f Faults) map[string]any {
	st := status()
	st["HealthRollup"] = f.healthRollup()
	return st
}
