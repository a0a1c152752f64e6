package ironictest

import (
	"fmt"
	"net/http"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
)

// BootDevice is a boot device the fake was asked to set.
type BootDevice struct {
	Device     string `json:"boot_device"`
	Persistent bool   `json:"persistent"`
}

// BootDevices returns the boot devices set on the node, in order.
func (s *Server) BootDevices(ident string) []BootDevice {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	n := s.NodeByIdent(ident)
	if n == nil {
		return nil
	}
	return append([]BootDevice(nil), s.bootDevices[n.UUID]...)
}

// setBootDevice is PUT /v1/nodes/{id}/management/boot_device: 409 while
// the node is busy, 400 for a device Ironic does not know.
func (s *Server) setBootDevice(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
	if s.locked(w, n) {
		return
	}
	var body BootDevice
	if !decode(w, r, &body) {
		return
	}
	switch body.Device {
	case "pxe", "disk", "cdrom", "bios", "safe", "wanboot":
	default:
		WriteError(w, http.StatusBadRequest, fmt.Sprintf("Invalid boot device %q", body.Device))
		return
	}
	if n.TargetProvisionState != "" || n.TargetPowerState != "" {
		WriteError(w, http.StatusConflict, fmt.Sprintf("Node %s is locked by host fake-conductor, please retry after the current operation is completed.", n.UUID))
		return
	}
	if s.bootDevices == nil {
		s.bootDevices = map[string][]BootDevice{}
	}
	s.bootDevices[n.UUID] = append(s.bootDevices[n.UUID], body)
	w.WriteHeader(http.StatusNoContent)
}
