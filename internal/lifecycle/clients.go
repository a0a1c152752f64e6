package lifecycle

import "context"

// Clients is what the provider builds once in Configure and hands to every
// resource and data source.
type Clients struct {
	// Machine runs hosts through the state machine.
	Machine *Machine
	// Catalog answers the questions that are not state transitions: lists,
	// hardware, claims. Implemented by internal/ironic.
	Catalog Catalog
	// Firmware reads BIOS settings, their schema and Ironic's firmware
	// features. Implemented by internal/ironic.
	Firmware FirmwareCatalog
	// Updater runs firmware updates through a host's BMC (when Ironic has
	// no firmware API). Implemented by internal/ironic.
	Updater FirmwareUpdater
	// IPPools keeps IP pools and their allocated addresses (baremetal_ip_pool,
	// baremetal_ip_claim). Implemented by internal/ironic.
	IPPools IPPoolStore
	// Runbooks keeps runbooks (baremetal_runbook). Implemented by internal/ironic.
	Runbooks RunbookStore
	// InspectionRules keeps inspection rules (baremetal_inspection_rule).
	// Implemented by internal/ironic.
	InspectionRules InspectionRuleStore
	// CheckBMC, when set, checks that a host's BMC answers and accepts its
	// credentials before the host is registered (Redfish pre-flight).
	CheckBMC func(ctx context.Context, access BMCAccess) error
	// ResetBMC resets the BMC (Redfish Manager.Reset with resetType) of
	// the system access names (baremetal_bmc_reset).
	ResetBMC func(ctx context.Context, access BMCAccess, resetType string) error
	// API is what the Ironic in use offers (negotiated microversion and
	// server maximum): plan-time checks of features ask it. Zero when
	// unknown: those checks then pass and the apply decides.
	API APIFeatures
}
