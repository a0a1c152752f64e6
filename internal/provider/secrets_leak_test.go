package provider_test

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest/secretscan"
)

// TestAccSecretsNotLeaked runs the provider as a user does, a built binary
// under a Terraform 1.11 CLI with TF_LOG=TRACE and TF_LOG_PATH, against the
// rig's Ironic and a simulated Redfish BMC, with every secret given
// write-only: the BMC password (bmc.password_wo), driver secrets
// (driver_secrets_wo), user data (user_data_wo), the provider's own
// Ironic password, and an oci:// image's pull secret (image.pull_secret_wo,
// refused at plan on the rig's Ironic 21.4, which predates OCI images). A
// second apply gives a wrong BMC password, so that an error is printed. Then no secret may appear in the TRACE log (Terraform's
// and the provider's), in anything Terraform printed (errors included), or
// in the state file.
func TestAccSecretsNotLeaked(t *testing.T) {
	acctest.PreCheck(t)
	requireTerraform(t, acctest.TerraformPath(t), 1, 11)

	secret := func(what string) string {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		return what + "-" + hex.EncodeToString(b)
	}
	var (
		bmcPassword   = secret("bmcpw")
		wrongPassword = secret("wrongpw")
		driverSecret  = secret("drvsecret")
		userData      = secret("userdata")
		ironicPass    = secret("ironicpw")
	)
	secrets := map[string]string{
		"BMC password": bmcPassword, "wrong BMC password": wrongPassword, "driver secret": driverSecret,
		"user data": userData, "Ironic password": ironicPass,
	}

	// The rig's endpoint, read before the environment is cleared: the
	// configuration names it, so the provider cannot fall back on it.
	endpoint, ociIronic := acctest.Endpoint(), acctest.IronicAtLeast(t, "1.96")
	t.Setenv("BAREMETAL_ENDPOINT", "")
	t.Setenv("BAREMETAL_PASSWORD", "")
	rr := newRealRun(t)
	dir, run := rr.dir, rr.run

	srv, _ := acctest.StartSim(t, 1, "admin", bmcPassword)
	name := acctest.Name("acc-leak")
	config := func(password, version string) string {
		return fmt.Sprintf(`
provider "baremetal" {
  endpoint = %[1]q
  auth     = "http_basic"
  username = "ironic"
  password = %[2]q
}

%[3]s
resource "baremetal_deployment" "leak" {
  host_id = baremetal_host.leak.id
  image = {
    url      = "http://127.0.0.1:8088/images/leak.qcow2"
    checksum = "0123456789abcdef0123456789abcdef"
    format   = "qcow2"
  }
  user_data_wo         = "#cloud-config\n# %[4]s\n"
  user_data_wo_version = "1"
  provisioning_retries = 0
}
`, endpoint, ironicPass, acctest.SimHost{Resource: "leak", Name: name, Address: acctest.SimAddress(srv, "sys-0"), Username: "admin",
			BMCExtra: fmt.Sprintf("    password_wo         = %q\n    password_wo_version = %q", password, version),
			Extra:    fmt.Sprintf("  driver_secrets_wo         = { fake_note = %q }\n  driver_secrets_wo_version = \"1\"", driverSecret)}.HCL(),
			userData)
	}
	var printed strings.Builder
	t.Cleanup(func() {
		writeFile(t, filepath.Join(dir, "main.tf"), config(bmcPassword, "1"))
		if out, err := run("destroy", "-auto-approve", "-input=false", "-no-color"); err != nil {
			t.Errorf("terraform destroy: %v\n%s", err, out)
		}
	})

	writeFile(t, filepath.Join(dir, "main.tf"), config(bmcPassword, "1"))
	out, err := run("apply", "-auto-approve", "-input=false", "-no-color")
	printed.WriteString(out)
	if err != nil {
		t.Fatalf("terraform apply: %v\n%s", err, out)
	}

	// A wrong BMC password under a new version: the provider checks it
	// against the BMC before pushing it, and fails.
	writeFile(t, filepath.Join(dir, "main.tf"), config(wrongPassword, "2"))
	out, err = run("apply", "-auto-approve", "-input=false", "-no-color")
	printed.WriteString(out)
	if err == nil {
		t.Fatalf("terraform apply with a wrong BMC password succeeded:\n%s", out)
	}
	if !strings.Contains(out, "BMC check failed") {
		t.Errorf("the failed apply does not say why:\n%s", out)
	}

	// An oci:// image from the authenticating registry with a write-only
	// pull secret: the rig's Ironic (21.4) predates OCI images, so the plan
	// is refused; the secret must be nowhere, Ironic's log included.
	reg := acctest.OCIRegistry(t)
	pullSecret := reg.User + ":" + reg.Password
	secrets["image pull secret"] = pullSecret
	secrets["image pull secret as Ironic takes it"] = base64.StdEncoding.EncodeToString([]byte(pullSecret))
	mark := acctest.MarkIronicLog(t)
	oci := strings.Replace(config(bmcPassword, "1"), `url      = "http://127.0.0.1:8088/images/leak.qcow2"
    checksum = "0123456789abcdef0123456789abcdef"
    format   = "qcow2"`, fmt.Sprintf(`url                    = %q
    pull_secret_wo         = %q
    pull_secret_wo_version = "1"`, reg.URL, pullSecret), 1)
	if !strings.Contains(oci, "pull_secret_wo") {
		t.Fatal("the oci:// configuration lost its pull secret")
	}
	writeFile(t, filepath.Join(dir, "main.tf"), oci)
	out, err = run("plan", "-input=false", "-no-color")
	printed.WriteString(out)
	switch {
	case !ociIronic && (err == nil || !strings.Contains(out, "Ironic too old for oci:// images")):
		t.Errorf("terraform plan of an oci:// image on an Ironic below 1.96: %v\n%s", err, out)
	case ociIronic && err != nil:
		// 2025.1 takes the image: the plan replaces the deployment, with
		// the pull secret only as its write-only version.
		t.Errorf("terraform plan of an oci:// image on Ironic 1.96+: %v\n%s", err, out)
	}
	ironicLog, err := mark.Text()
	if err != nil {
		t.Fatal(err)
	}
	secretscan.Check(t, map[string]string{"image pull secret": pullSecret, "image pull secret as Ironic takes it": secrets["image pull secret as Ironic takes it"]},
		map[string]string{"Ironic's log": ironicLog})

	state := rr.checkNoLeaks(t, secrets, nil, printed.String())
	var st struct {
		Resources []struct{ Type string } `json:"resources"`
	}
	if err := json.Unmarshal(state, &st); err != nil || len(st.Resources) != 2 {
		t.Fatalf("state holds %d resources (%v), want the host and the deployment", len(st.Resources), err)
	}
}

// TestAccKeystoneTokenNotLeaked: the same real run with keystone
// authentication against the Keystone rig: neither the Keystone password
// nor any token (a Fernet token starts with gAAAAA) may appear in the
// TRACE log, the output or the state, while Ironic saw requests with the
// token.
func TestAccKeystoneTokenNotLeaked(t *testing.T) {
	r := keystoneTestRig(t)
	rr := newRealRun(t)
	writeFile(t, filepath.Join(rr.dir, "main.tf"), keystoneProvider(r.keystoneBlock(false, r.Region))+hostsData)
	mark := r.logMark(t)
	out, err := rr.run("apply", "-auto-approve", "-input=false", "-no-color")
	if err != nil {
		t.Fatalf("terraform apply: %v\n%s", err, out)
	}
	if err := r.checkIronicSawToken(t, mark, "real run")(nil); err != nil {
		t.Fatal(err)
	}
	rr.checkNoLeaks(t, map[string]string{"Keystone password": r.Password},
		map[string]string{"a Keystone (Fernet) token": "gAAAAA"}, out)
}

// realRun is a directory where the provider runs as a user runs it: a
// built binary (dev_overrides) under the Terraform CLI, with TF_LOG=TRACE
// into TF_LOG_PATH.
type realRun struct {
	dir, logPath string
	run          func(args ...string) (string, error)
}

func newRealRun(t *testing.T) realRun {
	t.Helper()
	tf := acctest.TerraformPath(t)
	bin := buildProvider(t)
	dir := t.TempDir()
	rc := filepath.Join(dir, "terraformrc")
	writeFile(t, rc, fmt.Sprintf(`provider_installation {
  dev_overrides { "registry.terraform.io/hashicorp/baremetal" = %q }
  direct {}
}
`, bin))
	logPath := filepath.Join(dir, "trace.log")
	env := append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_LOG=TRACE", "TF_LOG_PATH="+logPath,
		"CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	return realRun{dir: dir, logPath: logPath, run: func(args ...string) (string, error) {
		cmd := exec.Command(tf, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}}
}

// checkNoLeaks checks that the TRACE log really holds the provider's TRACE
// output (else its silence proves nothing), and that no secret, nor any
// of the patterns, appears in it, in printed (what Terraform printed) or in
// the state file, which it returns.
func (rr realRun) checkNoLeaks(t *testing.T, secrets, patterns map[string]string, printed string) []byte {
	t.Helper()
	state, err := os.ReadFile(filepath.Join(rr.dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	trace, err := os.ReadFile(rr.logPath)
	if err != nil {
		t.Fatal(err)
	}
	secretscan.Captured(t, "the TRACE log", string(trace), "[TRACE] provider.terraform-provider-baremetal", "Ironic API request")
	all := maps.Clone(secrets)
	maps.Copy(all, patterns)
	secretscan.Check(t, all, map[string]string{"the TRACE log": string(trace), "Terraform's output": printed, "the state": string(state)})
	t.Logf("checked %d bytes of TRACE log, %d bytes of output and %d bytes of state for %d secrets and %d patterns",
		len(trace), len(printed), len(state), len(secrets), len(patterns))
	return state
}

// requireTerraform skips the test, saying so, unless the CLI at tf is at
// least major.minor.
func requireTerraform(t *testing.T, tf string, major, minor int) {
	t.Helper()
	out, err := exec.Command(tf, "version", "-json").Output()
	if err != nil {
		t.Fatalf("%s version: %v", tf, err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	var ma, mi int
	fmt.Sscanf(v.Version, "%d.%d", &ma, &mi)
	if ma < major || (ma == major && mi < minor) {
		t.Skipf("needs Terraform %d.%d or later (write-only attributes); %s is %s", major, minor, tf, v.Version)
	}
}

// buildProvider builds the provider binary, as a user installs it.
func buildProvider(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(bin, "terraform-provider-baremetal"), ".")
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
