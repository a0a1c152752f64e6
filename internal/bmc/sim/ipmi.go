package sim

import (
	"fmt"
	"io"
	"net/http"
	"strings"
)

// IPMI: a simulated system as the chassis behind OpenIPMI's ipmi_sim, an
// IPMI LAN BMC simulator (Debian package openipmi). ipmi_sim answers the
// IPMI protocol (ipmitool, Ironic's ipmi hardware type) and runs its
// configured chassis_control program for what touches the machine:
//
//	PROG DEVICE get power boot        -> "power:1", "boot:pxe" (one a line)
//	PROG DEVICE set power 1 boot pxe  (power 0|1, reset 1, shutdown 1,
//	                                   boot none|default|pxe|disk|cdrom|bios)
//
// The program hands its arguments after DEVICE to POST
// /sim/systems/{id}/ipmi-chassis, answered by IPMIChassis: power changes
// are the Redfish resets they match (recorded in Resets), and a boot
// device is a one-time boot override (recorded in BootRequests; an IPMI
// boot device without its persistent flag lasts one boot, and the program
// is not told the flag).

// ipmiBoot maps ipmi_sim's boot devices to Redfish boot override targets.
var ipmiBoot = map[string]string{"none": "None", "default": "None", "pxe": "Pxe", "disk": "Hdd", "cdrom": "Cd", "bios": "BiosSetup"}

// IPMIChassis carries out one chassis_control call on system id and
// returns what the program prints.
func (s *Server) IPMIChassis(id string, args []string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sys := s.systems[id]
	if sys == nil {
		return "", fmt.Errorf("sim: no system %q", id)
	}
	if len(args) == 0 {
		return "", fmt.Errorf("sim: ipmi chassis: no get or set")
	}
	var out strings.Builder
	switch op, params := args[0], args[1:]; op {
	case "get":
		for _, p := range params {
			switch p {
			case "power":
				v := 0
				if sys.power == PowerOn {
					v = 1
				}
				fmt.Fprintf(&out, "power:%d\n", v)
			case "boot":
				dev := "default"
				for k, t := range ipmiBoot {
					if t == sys.boot.Target && sys.boot.Enabled != "Disabled" && k != "none" && k != "default" {
						dev = k
					}
				}
				fmt.Fprintf(&out, "boot:%s\n", dev)
			default:
				return "", fmt.Errorf("sim: ipmi chassis: cannot get %q", p)
			}
		}
	case "set":
		if len(params)%2 != 0 {
			return "", fmt.Errorf("sim: ipmi chassis: set wants parameter-value pairs, not %q", params)
		}
		for i := 0; i < len(params); i += 2 {
			if err := sys.ipmiSet(params[i], params[i+1]); err != nil {
				return "", err
			}
		}
	default:
		return "", fmt.Errorf("sim: ipmi chassis: %q is neither get nor set", op)
	}
	return out.String(), nil
}

// ipmiSet sets one chassis parameter; s.mu held.
func (sys *system) ipmiSet(param, value string) error {
	switch {
	case param == "power" && value == "1":
		return sys.reset("On")
	case param == "power" && value == "0":
		return sys.reset("ForceOff")
	case param == "reset" && value == "1":
		return sys.reset("ForceRestart")
	case param == "shutdown" && value == "1":
		return sys.reset("GracefulShutdown")
	case param == "boot":
		target, ok := ipmiBoot[value]
		if !ok {
			return fmt.Errorf("sim: ipmi chassis: unknown boot device %q", value)
		}
		sys.boot.Target, sys.boot.Enabled = target, "Once"
		if target == "None" {
			sys.boot.Enabled = "Disabled"
		}
		sys.bootRequests = append(sys.bootRequests, sys.boot)
		return nil
	}
	return fmt.Errorf("sim: ipmi chassis: cannot set %s to %q", param, value)
}

func (s *Server) adminIPMIChassis(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 4096))
	if err != nil {
		writeError(w, http.StatusBadRequest, "Base.1.8.MalformedJSON", err.Error())
		return
	}
	out, err := s.IPMIChassis(r.PathValue("id"), strings.Fields(string(body)))
	if err != nil {
		writeError(w, http.StatusBadRequest, "Base.1.8.ActionParameterUnknown", err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	_, _ = io.WriteString(w, out)
}
