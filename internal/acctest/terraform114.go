package acctest

import (
	"os"
	"testing"
)

// Terraform114 points this test's Terraform at a Terraform 1.14 or later,
// for the tests of resource identity, list resources (`terraform query`)
// and actions: BAREMETAL_TF114_PATH, which scripts/test.sh sets from
// `scripts/terraform.sh 1.14`. Without it the test skips, saying so (and
// make test, which sets it, fails on any skip).
//
// terraform-plugin-testing reads TF_ACC_TERRAFORM_PATH from the process
// environment when resource.Test starts, so this sets it with t.Setenv: the
// test must not be parallel (Go refuses t.Setenv in parallel tests), and it
// uses resource.Test, not resource.ParallelTest. Go runs such a test alone,
// before the package's parallel tests resume, so the other tests keep the
// Terraform they were given. Subtests may still call t.Parallel.
func Terraform114(t *testing.T) {
	t.Helper()
	PreCheck(t)
	tf := os.Getenv("BAREMETAL_TF114_PATH")
	if tf == "" {
		t.Skip("needs Terraform 1.14+: set BAREMETAL_TF114_PATH (make test sets it to `scripts/terraform.sh 1.14`, which builds v1.14.9 once a machine when none is found)")
	}
	if _, err := os.Stat(tf); err != nil {
		t.Fatalf("BAREMETAL_TF114_PATH: %v", err)
	}
	t.Setenv("TF_ACC_TERRAFORM_PATH", tf)
}
