package lifecycle

// features.go is the one table of the Ironic API features this provider
// chooses by microversion, each with the microversion that introduced it
// (as the Bare Metal Operator's clients.AvailableFeatures does). The
// connection negotiates up to the server's maximum, capped at the newest
// microversion of this table (what the provider knows how to use); every
// place that picks a feature or its fallback asks Feature.In of the
// negotiated microversion, and every refusal of an Ironic that is too old
// is a *FeatureError.

import (
	"fmt"
	"strconv"
)

// Feature is an Ironic API feature gated on a microversion.
type Feature int

// The features, oldest first.
const (
	FeatureConductors       Feature = iota // GET /v1/conductors
	FeatureAllocations                     // allocation API
	FeatureConfigDriveJSON                 // config drive as a JSON object
	FeatureNetworkData                     // node network_data
	FeatureBIOSRegistry                    // GET /bios?detail=True registry fields
	FeatureHistory                         // GET /v1/nodes/{id}/history
	FeatureInventory                       // GET /v1/nodes/{id}/inventory
	FeatureShard                           // node shard
	FeatureParentNode                      // node parent_node (child nodes)
	FeatureFirmware                        // firmware interface and components
	FeatureServicing                       // service provision verb
	FeatureVirtualMedia                    // POST/DELETE /v1/nodes/{id}/vmedia
	FeatureRunbooks                        // /v1/runbooks, provision with runbook
	FeatureVirtualMediaGet                 // GET /v1/nodes/{id}/vmedia
	FeatureDisablePowerOff                 // node disable_power_off
	FeatureOCI                             // oci:// images (Ironic 2025.1's API maximum)
	FeatureInspectionRules                 // /v1/inspection_rules (built-in inspection's rules)
	FeaturePortGroupPhysnet                // port group physical_network (Ironic 2025.2)
	FeatureRequestIDHeader                 // X-OpenStack-Request-Id on every response (both it and OpenStack-Request-Id are read whatever the version)
	FeatureHealth                          // node health
	FeatureAbortCallBack                   // abort in wait call-back (deploy wait)
	featureCount
)

var featureTable = [featureCount]struct {
	minor int
	what  string
}{
	FeatureConductors:       {49, "the conductor list"},
	FeatureAllocations:      {52, "allocations"},
	FeatureConfigDriveJSON:  {56, "the config drive as JSON"},
	FeatureNetworkData:      {66, "the node's network_data"},
	FeatureBIOSRegistry:     {74, "the BIOS registry"},
	FeatureHistory:          {78, "the node history"},
	FeatureInventory:        {81, "the inventory API"},
	FeatureShard:            {82, "shard"},
	FeatureParentNode:       {83, "parent_node"},
	FeatureFirmware:         {86, "the firmware interface"},
	FeatureServicing:        {87, "servicing"},
	FeatureVirtualMedia:     {89, "the virtual media API"},
	FeatureRunbooks:         {92, "runbooks"},
	FeatureVirtualMediaGet:  {93, "reading virtual media"},
	FeatureDisablePowerOff:  {95, "disable_power_off"},
	FeatureOCI:              {96, "oci:// images"},
	FeatureInspectionRules:  {96, "inspection rules"},
	FeaturePortGroupPhysnet: {102, "a port group's physical_network"},
	FeatureRequestIDHeader:  {107, "the X-OpenStack-Request-Id header"},
	FeatureHealth:           {109, "node health"},
	FeatureAbortCallBack:    {110, "aborting wait call-back"},
}

// Minor is the minor version (of API 1.x) that introduced f.
func (f Feature) Minor() int { return featureTable[f].minor }

// Microversion is "1.<Minor>".
func (f Feature) Microversion() string { return "1." + strconv.Itoa(f.Minor()) }

func (f Feature) String() string { return featureTable[f].what }

// In reports whether microversion mv ("1.NN") offers f.
func (f Feature) In(mv string) bool { return !microversionLess(mv, f.Microversion()) }

// AllFeatures ranges over the table, oldest first.
func AllFeatures() func(yield func(Feature) bool) {
	return func(yield func(Feature) bool) {
		for f := range featureCount {
			if !yield(f) {
				return
			}
		}
	}
}

// NewestMicroversion is the newest microversion of the table: the most the
// provider negotiates.
func NewestMicroversion() string {
	newest := Feature(0)
	for f := range AllFeatures() {
		if f.Minor() > newest.Minor() {
			newest = f
		}
	}
	return newest.Microversion()
}

// FeatureError refuses what needs a Feature that the Ironic in use lacks.
type FeatureError struct {
	// Attribute is what asked for the feature ("disable_power_off").
	Attribute string
	Feature   Feature
	// Microversion is the connection's; ServerMax the server's maximum.
	Microversion, ServerMax string
}

func (e *FeatureError) Error() string {
	msg := fmt.Sprintf("%s needs Ironic API microversion %s or later, but this Ironic's maximum API microversion is %s",
		e.Attribute, e.Feature.Microversion(), e.ServerMax)
	if e.Feature.In(e.ServerMax) {
		msg = fmt.Sprintf("%s needs Ironic API microversion %s or later; this Ironic offers up to %s but the provider is pinned to %s",
			e.Attribute, e.Feature.Microversion(), e.ServerMax, e.Microversion)
	}
	return msg
}

// APIFeatures is what the Ironic in use offers: the connection's
// microversion and the server's maximum.
type APIFeatures struct {
	Microversion, ServerMax string
}

// Has reports whether the connection's microversion offers f.
func (a APIFeatures) Has(f Feature) bool { return f.In(a.Microversion) }

// Require is nil when a has f, or is not known (zero: the apply decides),
// else a *FeatureError for attribute.
func (a APIFeatures) Require(f Feature, attribute string) error {
	if a.Microversion == "" || a.Has(f) {
		return nil
	}
	return &FeatureError{Attribute: attribute, Feature: f, Microversion: a.Microversion, ServerMax: a.ServerMax}
}
