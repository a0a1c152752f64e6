// buildprovider.go owns the provider binary of the tests that run
// Terraform's CLI as a user does (the fault suite, the IP claim CLI tests):
// built from this clone, and found by Terraform through a dev override.
package acctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// BuildProvider builds the provider of this clone into dir and writes
// dir/dev.tfrc, a Terraform CLI configuration whose dev_overrides make
// Terraform run it; it returns that file's path.
func BuildProvider(dir string) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "terraform-provider-baremetal"), ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the provider: %v\n%s", err, out)
	}
	rc := filepath.Join(dir, "dev.tfrc")
	return rc, os.WriteFile(rc, []byte(fmt.Sprintf(`provider_installation {
  dev_overrides {
    "registry.terraform.io/baremetal-tf/baremetal" = %q
  }
  direct {}
}
`, dir)), 0o600)
}
