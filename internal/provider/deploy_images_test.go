package provider_test

// The provider's deploy_images are checked at terraform validate with the
// host's deploy_image rules: a known architecture as key, http(s) or
// file:// locations, either kernel and ramdisk or iso (issue 25).

import (
	"os"
	"path/filepath"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

func TestDeployImagesValidate(t *testing.T) {
	acctest.TerraformPath(t)
	clearProviderEnv(t)
	reattach, called := serve(t)
	dir := t.TempDir()
	cases := []badCase{
		bad("unknown architecture", "deploy_images", providerCase(`  deploy_images = {
    arm64 = { iso = "http://images.example.com/arm64.iso" }
  }`), `arm64`, "aarch64"),
		bad("kernel without ramdisk", "deploy_images", providerCase(`  deploy_images = {
    aarch64 = { kernel = "http://images.example.com/aarch64/vmlinuz" }
  }`), `.ramdisk" must be specified`, `Incomplete deploy image`),
		bad("nothing to boot", "deploy_images", providerCase(`  deploy_images = {
    aarch64 = { kernel_params = "console=ttyAMA0" }
  }`), "Incomplete deploy image", `deploy_images["aarch64"] needs either kernel and ramdisk, or iso`),
		bad("ramdisk on FTP", "deploy_images", providerCase(`  deploy_images = {
    aarch64 = {
      kernel  = "http://images.example.com/aarch64/vmlinuz"
      ramdisk = "ftp://images.example.com/aarch64/initramfs"
    }
  }`), `deploy_images["aarch64"].ramdisk`, `ftp://images.example.com/aarch64/initramfs`),
		bad("relative file path", "deploy_images", providerCase(`  deploy_images = {
    x86_64 = { iso = "file://images/ipa.iso" }
  }`), `deploy_images["x86_64"].iso`, `file://images/ipa.iso`),
	}
	for i, c := range cases {
		if err := os.WriteFile(filepath.Join(dir, caseFile(i)), []byte(render(c.config, i, dir)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	good := providerCase(`  deploy_images = {
    aarch64 = {
      kernel        = "https://images.example.com/aarch64/vmlinuz"
      ramdisk       = "file:///var/lib/ironic/images/aarch64.initramfs"
      bootloader    = "https://images.example.com/aarch64/esp.img"
      kernel_params = "%default% console=ttyAMA0"
    }
    x86_64 = { iso = "http://images.example.com/x86_64/ipa.iso" }
  }`)
	if err := os.WriteFile(filepath.Join(dir, "good.tf"), []byte(render(good, 999, dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	byFile := map[string][]tfjson.Diagnostic{}
	for _, d := range acctest.NewCLI(t, dir, reattach).Validate(t) {
		if d.Severity == tfjson.DiagnosticSeverityError && d.Range != nil {
			byFile[d.Range.Filename] = append(byFile[d.Range.Filename], d)
		}
	}
	if ds := byFile["good.tf"]; len(ds) > 0 {
		t.Errorf("correct deploy_images were refused:\n%s", describe(ds))
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkCase(t, c, byFile[caseFile(i)])
			t.Logf("%s", describe(byFile[caseFile(i)]))
		})
	}
	if called.Load() {
		t.Error("ConfigureProvider was called: terraform validate must judge these without configuring the provider")
	}
}
