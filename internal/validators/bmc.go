package validators

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmcaddr"
)

// RedfishBMCAddress accepts a BMC address of a Redfish-family scheme: the
// address of a bmc block whose only use is a Redfish session (the BMC
// reads of baremetal_hardware and baremetal_firmware, the updates of
// baremetal_firmware_update), where an ipmi:// or libvirt:// address would
// be silently of no use.
func RedfishBMCAddress() validator.String {
	return New("a BMC address of a Redfish-family scheme", func(s string) error {
		d, err := bmcaddr.Parse(s)
		if err != nil {
			return err
		}
		if !d.IsRedfish() {
			return fmt.Errorf("BMC address %q is of type %q, which does not speak Redfish; this bmc block is only used "+
				"over Redfish: use a Redfish-family scheme such as redfish://, redfish-virtualmedia:// or idrac-virtualmedia://",
				bmcaddr.Redact(s), d.Type)
		}
		return nil
	})
}
