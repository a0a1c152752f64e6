// Package faults holds the fault suite (make test-faults): the provider,
// run by the Terraform CLI as users run it, against a real Ironic that is
// killed, restarted, split over two conductors, made to lose a task, or
// given misbehaving BMCs. Its tests kill parts of the rig, so they run only
// when BAREMETAL_FAULTS=1, one at a time, on a rig of their own
// (scripts/faults.sh). Each test writes its row of the fault table to
// .tools/faults.txt.
package faults
