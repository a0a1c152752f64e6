package lifecycle

import "fmt"

// InspectionMode is BMO's spec.inspectionMode: how a host is inspected on
// registration (and on re-inspection).
type InspectionMode string

const (
	// InspectionEnabled is in-band inspection: the host boots the agent
	// ramdisk, which reports its inventory.
	InspectionEnabled InspectionMode = "enabled"
	// InspectionOutOfBand asks the BMC (Redfish, iDRAC, iLO, iRMC) instead.
	InspectionOutOfBand InspectionMode = "out-of-band"
	// InspectionDisabled skips inspection.
	InspectionDisabled InspectionMode = "disabled"
)

// InspectionModes lists the modes in the order documentation shows them.
var InspectionModes = []InspectionMode{InspectionEnabled, InspectionOutOfBand, InspectionDisabled}

// Ironic inspect interfaces.
const (
	inspectAgent     = "agent"
	inspectInspector = "inspector"
	inspectNone      = "no-inspect"
	inspectFake      = "fake"
)

// outOfBandInspect is each Ironic hardware type's out-of-band inspect
// interface (Ironic's redfish, idrac, ilo and irmc hardware types).
var outOfBandInspect = map[string]string{
	"redfish": "redfish",
	"idrac":   "idrac-redfish",
	"ilo":     "ilo",
	"ilo5":    "ilo",
	"irmc":    "irmc",
}

// InspectInterfaces is the inspect interface a host of the given Ironic
// driver gets for mode (BMO's inspectInterfaceForMode), in order of
// preference: in-band is "agent" (Ironic's built-in inspection), else
// "inspector" (ironic-inspector, before Ironic had agent inspection);
// out-of-band is the driver family's BMC inspection; disabled is
// "no-inspect". fake-hardware inspects with "fake" unless disabled. The
// provisioner takes the first one the Ironic enables for the driver. A
// driver with no out-of-band inspection is an error naming it.
func InspectInterfaces(driver string, mode InspectionMode) ([]string, error) {
	switch mode {
	case InspectionDisabled:
		return []string{inspectNone}, nil
	case InspectionEnabled, "":
		if driver == "fake-hardware" {
			return []string{inspectFake}, nil
		}
		return []string{inspectAgent, inspectInspector}, nil
	case InspectionOutOfBand:
		if driver == "fake-hardware" {
			return []string{inspectFake}, nil
		}
		if iface, ok := outOfBandInspect[driver]; ok {
			return []string{iface}, nil
		}
		return nil, fmt.Errorf("inspection = %q: Ironic driver %q cannot inspect out of band "+
			"(only redfish, idrac, ilo and irmc can: use a Redfish BMC address, or inspection = \"enabled\")", mode, driver)
	}
	return nil, fmt.Errorf("inspection = %q is not one of enabled, out-of-band, disabled", mode)
}
