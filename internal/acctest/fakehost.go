// fakehost.go owns the HCL of the fake-hardware hosts that the pool,
// claim and data source tests declare several of.
package acctest

import "fmt"

// PoolHost is baremetal_host "h<i>", named <prefix>-<i>: a powered-off
// fake-hardware host labelled with pool and role.
func PoolHost(i int, prefix, pool, role string) string {
	return fmt.Sprintf(`
resource "baremetal_host" "h%[1]d" {
  name        = "%[2]s-%[1]d"
  driver      = "fake-hardware"
  driver_info = {}
  online      = false
  labels = {
    pool = %[3]q
    role = %[4]q
  }
}
`, i, prefix, pool, role)
}
