// Package bmc maps BMC addresses onto Ironic drivers and talks Redfish to BMCs for what Ironic does not keep.
package bmc
