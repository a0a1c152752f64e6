// Package lifecycle is the Bare Metal Operator's host state machine, ported
// to a pure Go package: states, transitions, actions, error types, retry and
// backoff, the capacity gate and the delete rules. It knows nothing of
// Terraform and nothing of Ironic; it drives hardware only through the
// Provisioner interface (as BMO's pkg/provisioner does). internal/ironic
// implements that interface; internal/resources translates Terraform models
// into Host values and calls Converge.
//
// # Citing the Bare Metal Operator
//
// Comments across this repository cite the Bare Metal Operator (BMO,
// github.com/metal3-io/baremetal-operator) by file abbreviation and function
// name, never by line, so that the citations stay true as BMO moves on. The
// behaviour ported is that of BMO commit 02aa5059e (2026-08-20, release
// v0.14.0-rc.0 plus 37 commits), the snapshot /work/shared/spec/bmo-behaviour.md
// was read from. A citation such as "SM hostStateMachine.handleRegistering"
// means function handleRegistering of type hostStateMachine in the file SM:
//
//	SM   internal/controller/metal3.io/host_state_machine.go
//	CTL  internal/controller/metal3.io/baremetalhost_controller.go
//	AR   internal/controller/metal3.io/action_result.go
//	API  apis/metal3.io/v1alpha1/baremetalhost_types.go
//	IR   pkg/provisioner/ironic/ironic.go
//	REG  pkg/provisioner/ironic/register.go
//	INS  pkg/provisioner/ironic/inspecthardware.go
//	SVC  pkg/provisioner/ironic/servicing.go
//	RAID pkg/provisioner/ironic/raid.go
//	BMC  pkg/hardwareutils/bmc/
//
// Names of several functions after one abbreviation list the functions that
// together do what the cited code does; a name without a receiver has the
// receiver of the name before it.
package lifecycle
