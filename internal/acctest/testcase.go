// testcase.go owns the test case every acceptance test starts from: this
// provider, the rig's pre-check and the test's check that nothing is left.
package acctest

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// ParallelTest runs steps against the rig in parallel with the other
// acceptance tests, with this provider and the rig's pre-check;
// checkDestroy (nil for none) runs after the last destroy.
func ParallelTest(t *testing.T, checkDestroy resource.TestCheckFunc, steps []resource.TestStep) {
	t.Helper()
	resource.ParallelTest(t, Case(t, checkDestroy, steps))
}

// Test is ParallelTest for a test that must not share the rig's time with
// others (it counts on timing, or on state the others would change).
func Test(t *testing.T, checkDestroy resource.TestCheckFunc, steps []resource.TestStep) {
	t.Helper()
	resource.Test(t, Case(t, checkDestroy, steps))
}

// Case is the test case of ParallelTest, for a test that needs more (its
// own pre-check, Terraform version checks) before it runs it.
func Case(t *testing.T, checkDestroy resource.TestCheckFunc, steps []resource.TestStep) resource.TestCase {
	return resource.TestCase{
		PreCheck:                 func() { PreCheck(t) },
		ProtoV6ProviderFactories: ProviderFactories,
		CheckDestroy:             checkDestroy,
		Steps:                    steps,
	}
}
