package sim

import (
	"net/http"
	"strings"
)

func (s *Server) handleManager(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		u := v1 + "/Managers/" + sys.id
		return map[string]any{
			"@odata.id":       u,
			"@odata.type":     "#Manager.v1_10_0.Manager",
			"Id":              sys.id,
			"Name":            "BMC of " + sys.id,
			"ManagerType":     "BMC",
			"Model":           "SimBMC",
			"FirmwareVersion": sys.roleVersion("BMC"),
			"UUID":            sys.profile.UUID,
			"PowerState":      PowerOn,
			"Status":          status(),
			"VirtualMedia":    link(u + "/VirtualMedia"),
			"Links": map[string]any{
				"ManagerForServers": links(sysURI(sys.id)),
				"ManagerForChassis": links(v1 + "/Chassis/" + sys.id),
			},
			"Actions": map[string]any{"#Manager.Reset": map[string]any{
				"target":                            u + "/Actions/Manager.Reset",
				"ResetType@Redfish.AllowableValues": []string{"GracefulRestart", "ForceRestart"},
			}},
		}
	})
}

func (s *Server) handleVirtualMedias(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		u := v1 + "/Managers/" + sys.id + "/VirtualMedia"
		return collectionJSON(u, "#VirtualMediaCollection.VirtualMediaCollection", "Virtual Media Services",
			[]string{u + "/Cd", u + "/Floppy"})
	})
}

func mediaTypes(dev string) []string {
	if dev == "Cd" {
		return []string{"CD", "DVD"}
	}
	return []string{"Floppy", "USBStick"}
}

func (s *Server) handleVirtualMedia(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		dev := sys.mediaDev(r.PathValue("dev"))
		m := sys.media[dev]
		if m == nil {
			return nil
		}
		u := v1 + "/Managers/" + sys.id + "/VirtualMedia/" + dev
		connected, imageName := "NotConnected", ""
		if m.Inserted {
			connected = "URI"
			imageName = m.Image
		}
		return map[string]any{
			"@odata.id":      u,
			"@odata.type":    "#VirtualMedia.v1_3_0.VirtualMedia",
			"Id":             dev,
			"Name":           "Virtual " + dev,
			"MediaTypes":     mediaTypes(dev),
			"Image":          m.Image,
			"ImageName":      imageName,
			"Inserted":       m.Inserted,
			"WriteProtected": m.WriteProtected,
			"ConnectedVia":   connected,
			"Actions": map[string]any{
				"#VirtualMedia.InsertMedia": map[string]any{"target": u + "/Actions/VirtualMedia.InsertMedia"},
				"#VirtualMedia.EjectMedia":  map[string]any{"target": u + "/Actions/VirtualMedia.EjectMedia"},
			},
		}
	})
}

// handleInsertMedia serves InsertMedia and PATCH of the VirtualMedia resource.
func (s *Server) handleInsertMedia(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Image          *string
		Inserted       *bool
		WriteProtected *bool
	}
	s.change(w, r, &body, func(sys *system) {
		m := sys.requestedMedia(w, r)
		if m == nil {
			return
		}
		if body.Image == nil && r.Method == http.MethodPost {
			writeError(w, http.StatusBadRequest, "Base.1.8.ActionParameterMissing", "Image is required")
			return
		}
		if body.Image != nil {
			m.Image = *body.Image
			m.Inserted = m.Image != ""
		}
		if body.Inserted != nil {
			m.Inserted = *body.Inserted
		}
		if body.WriteProtected != nil {
			m.WriteProtected = *body.WriteProtected
		}
		if !m.Inserted {
			m.Image = ""
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

func (s *Server) handleEjectMedia(w http.ResponseWriter, r *http.Request) {
	s.change(w, r, nil, func(sys *system) {
		m := sys.requestedMedia(w, r)
		if m == nil {
			return
		}
		m.Image, m.Inserted = "", false
		w.WriteHeader(http.StatusNoContent)
	})
}

func (s *Server) handleChassis(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		p := sys.profile
		if sys.isEnclosure(r.PathValue("id")) {
			return enclosureJSON(sys)
		}
		chassisLinks := map[string]any{
			"ComputerSystems": links(sysURI(sys.id)),
			"ManagedBy":       links(v1 + "/Managers/" + sys.id),
		}
		if p.Enclosure != "" {
			chassisLinks["Contains"] = links(v1 + "/Chassis/" + sys.enclosureID())
		}
		return map[string]any{
			"@odata.id":    v1 + "/Chassis/" + sys.id,
			"@odata.type":  "#Chassis.v1_14_0.Chassis",
			"Id":           sys.id,
			"Name":         "Chassis of " + sys.id,
			"ChassisType":  "RackMount",
			"Manufacturer": p.Manufacturer,
			"Model":        p.Model,
			"SerialNumber": p.SerialNumber,
			"SKU":          p.SKU,
			"PowerState":   sys.power,
			"Status":       rollupStatus(sys.faults),
			"Thermal":      link(v1 + "/Chassis/" + sys.id + "/Thermal"),
			"Links":        chassisLinks,
		}
	})
}

// handleThermal is the chassis' Thermal resource: one fan, whose health
// is Faults.FanHealth.
func (s *Server) handleThermal(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		if sys.isEnclosure(r.PathValue("id")) {
			return nil
		}
		u := v1 + "/Chassis/" + sys.id + "/Thermal"
		return map[string]any{
			"@odata.id":   u,
			"@odata.type": "#Thermal.v1_7_0.Thermal",
			"Id":          "Thermal",
			"Name":        "Thermal",
			"Fans": []map[string]any{{
				"@odata.id": u + "#/Fans/0", "MemberId": "0", "Name": "Fan1",
				"Reading": 5600, "ReadingUnits": "RPM", "Status": statusOf(sys.faults.fanHealth()),
			}},
			"Fans@odata.count": 1,
		}
	})
}

// enclosureJSON is the system's storage-enclosure chassis, as iLO serves
// Chassis/DE00A000: its drives, contained by the system's chassis, with no
// link to the system itself.
func enclosureJSON(sys *system) map[string]any {
	u := v1 + "/Chassis/" + sys.enclosureID()
	return map[string]any{
		"@odata.id":   u,
		"@odata.type": "#Chassis.v1_14_0.Chassis",
		"Id":          sys.enclosureID(),
		"Name":        "Storage Enclosure " + sys.profile.Enclosure,
		"ChassisType": "StorageEnclosure",
		"Drives":      link(u + "/Drives"),
		"Status":      status(),
		"Links":       map[string]any{"ContainedBy": link(v1 + "/Chassis/" + sys.id)},
	}
}

// mediaDev is the virtual media device named dev, compared without case.
func (sys *system) mediaDev(dev string) string {
	for k := range sys.media {
		if strings.EqualFold(k, dev) {
			return k
		}
	}
	return dev
}

// requestedMedia is the {dev} virtual media device of a request, nil
// (answered 404) when the system has none of that name.
func (sys *system) requestedMedia(w http.ResponseWriter, r *http.Request) *MediaState {
	m := sys.media[sys.mediaDev(r.PathValue("dev"))]
	if m == nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "no such virtual media device")
	}
	return m
}

// handleManagerReset records a Manager.Reset (the BMC restarts; the
// system's power is untouched) of the types the manager lists.
func (s *Server) handleManagerReset(w http.ResponseWriter, r *http.Request) {
	var body struct{ ResetType string }
	s.change(w, r, &body, func(sys *system) {
		if body.ResetType != "GracefulRestart" && body.ResetType != "ForceRestart" {
			writeError(w, http.StatusBadRequest, "Base.1.8.ActionParameterValueNotInList",
				"The value "+body.ResetType+" for the parameter ResetType is not in the list of acceptable values.")
			return
		}
		sys.managerResets = append(sys.managerResets, body.ResetType)
		w.WriteHeader(http.StatusNoContent)
	})
}
