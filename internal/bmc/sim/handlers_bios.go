package sim

import (
	"maps"
	"net/http"
)

func (s *Server) handleBios(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		u := sysURI(sys.id) + "/Bios"
		return map[string]any{
			"@odata.id":         u,
			"@odata.type":       "#Bios.v1_1_0.Bios",
			"Id":                "BIOS",
			"Name":              "BIOS Configuration Current Settings",
			"AttributeRegistry": sys.profile.BIOSRegistry,
			"Attributes":        maps.Clone(sys.biosCurrent),
			"@Redfish.Settings": map[string]any{
				"@odata.type":         "#Settings.v1_3_5.Settings",
				"SettingsObject":      link(u + "/Settings"),
				"SupportedApplyTimes": []string{"OnReset"},
			},
			"Actions": map[string]any{
				"#Bios.ResetBios":      map[string]any{"target": u + "/Actions/Bios.ResetBios"},
				"#Bios.ChangePassword": map[string]any{"target": u + "/Actions/Bios.ChangePassword"},
			},
		}
	})
}

// handleBiosSettings shows the pending settings, applied on the next boot.
func (s *Server) handleBiosSettings(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		return map[string]any{
			"@odata.id":         sysURI(sys.id) + "/Bios/Settings",
			"@odata.type":       "#Bios.v1_1_0.Bios",
			"Id":                "Settings",
			"Name":              "BIOS Configuration Pending Settings",
			"AttributeRegistry": sys.profile.BIOSRegistry,
			"Attributes":        maps.Clone(sys.biosPending),
		}
	})
}

// handleBiosPatch validates the attributes against the registry and stores
// them as pending; PATCH on the Bios resource itself is treated the same.
func (s *Server) handleBiosPatch(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Attributes map[string]any
	}
	s.change(w, r, &body, func(sys *system) {
		if len(body.Attributes) == 0 {
			writeError(w, http.StatusBadRequest, "Base.1.8.PropertyMissing", "Attributes is required")
			return
		}
		for _, name := range sortedKeys(body.Attributes) {
			attr, ok := sys.attribute(name)
			if !ok {
				writeErrorArgs(w, http.StatusBadRequest, "Base.1.8.PropertyUnknown", "unknown BIOS attribute "+name, name)
				return
			}
			if why := sys.locked(name, body.Attributes); why != "" {
				writeErrorArgs(w, http.StatusBadRequest, "Base.1.8.PropertyNotWritable", why, name)
				return
			}
			if err := attr.validate(body.Attributes[name]); err != nil {
				writeErrorArgs(w, http.StatusBadRequest, "Base.1.8.PropertyValueIncorrect", err.Error(), name)
				return
			}
		}
		maps.Copy(sys.biosPending, body.Attributes)
		w.WriteHeader(http.StatusNoContent)
	})
}

// handleBiosReset sets every attribute back to its default on the next boot.
func (s *Server) handleBiosReset(w http.ResponseWriter, r *http.Request) {
	s.change(w, r, nil, func(sys *system) {
		for _, a := range sys.profile.BIOS {
			if !a.ReadOnly {
				sys.biosPending[a.Name] = normalizeValue(a.defaultValue())
			}
		}
		w.WriteHeader(http.StatusNoContent)
	})
}
