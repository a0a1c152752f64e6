package ironic

import (
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Ironic provision states (the values of node.provision_state) this package
// reasons about. gophercloud has the same constants in nodes; plain strings
// keep the tables below readable.
const (
	psEnroll       = "enroll"
	psVerifying    = "verifying"
	psManageable   = "manageable"
	psAvailable    = "available"
	psActive       = "active"
	psDeployWait   = "wait call-back"
	psDeploying    = "deploying"
	psDeployFail   = "deploy failed"
	psDeployHold   = "deploy hold"
	psDeleting     = "deleting"
	psCleaning     = "cleaning"
	psCleanWait    = "clean wait"
	psCleanFail    = "clean failed"
	psCleanHold    = "clean hold"
	psError        = "error"
	psInspecting   = "inspecting"
	psInspectWait  = "inspect wait"
	psInspectFail  = "inspect failed"
	psAdopting     = "adopting"
	psAdoptFail    = "adopt failed"
	psServicing    = "servicing"
	psServiceWait  = "service wait"
	psServiceFail  = "service failed"
	psServiceHold  = "service hold"
	psRescue       = "rescue"
	psRescueWait   = "rescue wait"
	psRescuing     = "rescuing"
	psRescueFail   = "rescue failed"
	psUnrescuing   = "unrescuing"
	psUnrescueFail = "unrescue failed"
	psRebuild      = "rebuild"
	powerOn        = "power on"
	powerOff       = "power off"
	softPowerOff   = "soft power off"
)

// failedState reports whether Ironic provision state ps is the end of a
// failed operation (nothing runs on the node; its target_provision_state
// still names where the operation was going).
func failedState(ps string) bool {
	switch ps {
	case psInspectFail, psCleanFail, psDeployFail, psAdoptFail, psServiceFail, psRescueFail, psUnrescueFail, psError:
		return true
	}
	return false
}

// MapState returns the BMO state that an Ironic provision state implies,
// given the host's previous lifecycle state. Observe uses it (import,
// refresh, drift detection); the state machine itself never trusts it over
// its own record. The mapping:
//
//	Ironic provision_state                      previous lifecycle state                      -> BMO state
//	------------------------------------------  --------------------------------------------  ------------------------
//	enroll, verifying                           any                                           registering
//	inspecting, inspect wait, inspect failed    any                                           inspecting
//	manageable                                  registering, inspecting, preparing,           previous
//	                                            provisioned, externally provisioned,
//	                                            deprovisioning, powering off before delete,
//	                                            deleting
//	manageable                                  anything else                                 preparing
//	cleaning, clean wait, clean failed,         preparing                                     preparing
//	clean hold                                  provisioned, deprovisioning                   deprovisioning
//	                                            powering off before delete, deleting          previous
//	                                            anything else                                 available (automated cleaning after provide)
//	available                                   powering off before delete, deleting          previous
//	                                            anything else                                 available
//	deploying, wait call-back, deploy failed,   any                                           provisioning
//	deploy hold
//	active, servicing, service wait,            externally provisioned, deprovisioning,       previous
//	service failed, service hold, rescue*,      powering off before delete, deleting
//	unrescue*, rebuild
//	                                            anything else                                 provisioned
//	adopting, adopt failed                      provisioned                                   provisioned
//	                                            anything else                                 externally provisioned
//	deleting                                    powering off before delete, deleting          previous
//	                                            anything else                                 deprovisioning
//	error (failed undeploy)                     provisioning, none                            provisioning
//	                                            anything else                                 deprovisioning
//	"" or unknown                               none                                          registering
//	                                            anything else                                 previous
func MapState(provisionState string, previous lifecycle.State) lifecycle.State {
	deleting := previous == lifecycle.StatePoweringOffBeforeDelete || previous == lifecycle.StateDeleting
	switch provisionState {
	case psEnroll, psVerifying:
		return lifecycle.StateRegistering
	case psInspecting, psInspectWait, psInspectFail:
		return lifecycle.StateInspecting
	case psManageable:
		switch previous {
		case lifecycle.StateRegistering, lifecycle.StateInspecting, lifecycle.StatePreparing,
			lifecycle.StateProvisioned, lifecycle.StateExternallyProvisioned,
			lifecycle.StateDeprovisioning, lifecycle.StatePoweringOffBeforeDelete, lifecycle.StateDeleting:
			return previous
		}
		return lifecycle.StatePreparing
	case psCleaning, psCleanWait, psCleanFail, psCleanHold:
		switch {
		case previous == lifecycle.StatePreparing:
			return lifecycle.StatePreparing
		case previous == lifecycle.StateProvisioned || previous == lifecycle.StateDeprovisioning:
			return lifecycle.StateDeprovisioning
		case deleting:
			return previous
		}
		return lifecycle.StateAvailable
	case psAvailable:
		if deleting {
			return previous
		}
		return lifecycle.StateAvailable
	case psDeploying, psDeployWait, psDeployFail, psDeployHold:
		return lifecycle.StateProvisioning
	case psActive, psServicing, psServiceWait, psServiceFail, psServiceHold,
		psRescue, psRescueWait, psRescuing, psRescueFail, psUnrescuing, psUnrescueFail, psRebuild:
		switch previous {
		case lifecycle.StateExternallyProvisioned, lifecycle.StateDeprovisioning,
			lifecycle.StatePoweringOffBeforeDelete, lifecycle.StateDeleting:
			return previous
		}
		return lifecycle.StateProvisioned
	case psAdopting, psAdoptFail:
		if previous == lifecycle.StateProvisioned {
			return lifecycle.StateProvisioned
		}
		return lifecycle.StateExternallyProvisioned
	case psDeleting:
		if deleting {
			return previous
		}
		return lifecycle.StateDeprovisioning
	case psError:
		if previous == lifecycle.StateProvisioning || previous == lifecycle.StateNone {
			return lifecycle.StateProvisioning
		}
		return lifecycle.StateDeprovisioning
	}
	if previous == lifecycle.StateNone {
		return lifecycle.StateRegistering
	}
	return previous
}
