package resources_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
)

const ociPullToken = "oci-pull-token-7f3a9"

// TestAccDeploymentOCI_fake: image.pull_secret_wo against the in-process
// fake Ironic. At Ironic 2025.1's API (1.96) the secret goes to
// instance_info.image_pull_secret in the form Ironic takes (the Docker
// config auth value), the fake shows it masked as Ironic does, and neither
// it nor its base64 is in the state. At Debian's 21.4 (1.82) an oci://
// deployment is refused at plan, naming image.url, the scheme, the
// microversions and the release needed, with nothing written to the node.
// Bad secrets and a secret on an http:// image fail terraform validate.
func TestAccDeploymentOCI_fake(t *testing.T) {
	t.Parallel()
	sentAs := base64.StdEncoding.EncodeToString([]byte("robot:" + ociPullToken))
	cases := []struct {
		name      string
		max       string
		url       string
		secret    string
		later     bool // the URL is known only at apply
		wantErr   string
		wantPatch bool
	}{
		{name: "secret sent", max: ironictest.OCIMaxMicroversion, url: "oci://registry.example/demo/disk:latest",
			secret: "robot:" + ociPullToken, wantPatch: true},
		{name: "docker config sent", max: ironictest.OCIMaxMicroversion, url: "oci://registry.example/demo/disk:latest",
			secret: `{"auths":{"registry.example":{"auth":"` + sentAs + `"}}}`, wantPatch: true},
		{name: "too-old Ironic refused at plan", max: ironictest.DefaultMaxMicroversion, url: "oci://registry.example/demo/disk:latest",
			secret:  "robot:" + ociPullToken,
			wantErr: `(?s)Ironic too old for oci:// images.*image.url\s+"oci://registry.example/demo/disk:latest" uses the\s+oci://\s+scheme,\s+which\s+needs\s+Ironic\s+2025.1\s+\(29.0, API\s+microversion\s+1.96\)\s+or\s+later.*maximum\s+API\s+microversion\s+is\s+1.82`},
		{name: "too-old Ironic refused at apply", max: ironictest.DefaultMaxMicroversion, url: "oci://registry.example/demo/disk:latest",
			secret: "robot:" + ociPullToken, later: true,
			wantErr: `(?s)Ironic too old for oci:// images.*maximum\s+API\s+microversion\s+is\s+1.82`},
		{name: "secret on an http image", max: ironictest.OCIMaxMicroversion, url: "http://images.example/disk.qcow2",
			secret: "robot:" + ociPullToken, wantErr: `(?s)Pull secret without an OCI image.*image.pull_secret_wo`},
		{name: "secret of neither form", max: ironictest.OCIMaxMicroversion, url: "oci://registry.example/demo/disk:latest",
			secret: ociPullToken, wantErr: `(?s)Invalid image pull secret.*image.pull_secret_wo:\s+the\s+pull\s+secret\s+is\s+neither`},
		{name: "docker config of another registry", max: ironictest.OCIMaxMicroversion, url: "oci://registry.example/demo/disk:latest",
			secret: `{"auths":{"quay.io":{"auth":"` + sentAs + `"}}}`, wantErr: `(?s)no\s+"auths"\s+entry\s+for\s+the\s+image's\s+registry\s+"registry.example"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := ironictest.New(t)
			srv.MaxMicroversion = c.max
			id := srv.AddNode(nodes.Node{Name: "oci-0", Driver: "fake-hardware", ProvisionState: "available", PowerState: "power off"})
			cfg := fmt.Sprintf(`
provider "baremetal" {
  endpoint = %q
}

variable "pull_secret" {
  type      = string
  sensitive = true
}

variable "secret_version" {
  type    = string
  default = "1"
}

resource "terraform_data" "url" {
  input = %q
}

resource "baremetal_deployment" "d" {
  host_id = "oci-0"
  image = {
    url                    = %s
    checksum               = %s
    pull_secret_wo         = var.pull_secret
    pull_secret_wo_version = var.secret_version
  }
}
`, srv.URL, c.url, urlExpr(c.url, c.later), checksumFor(c.url))
			step := resource.TestStep{Config: cfg, ConfigVariables: config.Variables{"pull_secret": config.StringVariable(c.secret)}}
			if c.wantErr != "" {
				step.ExpectError = regexp.MustCompile(c.wantErr)
			} else {
				step.Check = resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("baremetal_deployment.d", "provisioning_state", "provisioned"),
					resource.TestCheckNoResourceAttr("baremetal_deployment.d", "image.pull_secret_wo"),
					resource.TestCheckResourceAttr("baremetal_deployment.d", "image.pull_secret_wo_version", "1"),
					func(s *terraform.State) error {
						raw, _ := json.Marshal(s)
						if strings.Contains(string(raw), ociPullToken) || strings.Contains(string(raw), sentAs) {
							return fmt.Errorf("the pull secret is in the state")
						}
						if got := srv.MustNode(id).InstanceInfo["image_pull_secret"]; got != sentAs {
							return fmt.Errorf("instance_info.image_pull_secret set: %v, want the Docker config auth value", got != nil)
						}
						// Shown masked, as Ironic does.
						resp, err := http.Get(srv.URL + "/v1/nodes/" + id)
						if err != nil {
							return err
						}
						defer resp.Body.Close()
						body, _ := io.ReadAll(resp.Body)
						if strings.Contains(string(body), sentAs) || !strings.Contains(string(body), `"image_pull_secret":"******"`) {
							return fmt.Errorf("GET node does not mask image_pull_secret")
						}
						return nil
					},
				)
			}
			steps := []resource.TestStep{step}
			if c.wantErr == "" {
				// A new version and secret replace the deployment, which
				// sends the new secret.
				newSecret := "robot:" + ociPullToken + "-2"
				steps = append(steps, resource.TestStep{Config: cfg,
					ConfigVariables: config.Variables{"pull_secret": config.StringVariable(newSecret), "secret_version": config.StringVariable("2")},
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("baremetal_deployment.d", plancheck.ResourceActionDestroyBeforeCreate),
					}},
					Check: func(*terraform.State) error {
						want := base64.StdEncoding.EncodeToString([]byte(newSecret))
						if srv.MustNode(id).InstanceInfo["image_pull_secret"] != want {
							return fmt.Errorf("the new pull secret was not sent")
						}
						return nil
					},
				})
			}
			acctest.Test(t, nil, steps)
			patched := false
			for _, r := range srv.Requests() {
				if r.Method == "PATCH" && strings.Contains(r.Body, "/instance_info/image_pull_secret") {
					patched = true
				}
			}
			if patched != c.wantPatch {
				t.Errorf("image_pull_secret written: %v, want %v", patched, c.wantPatch)
			}
		})
	}
}

// urlExpr is the image URL, or terraform_data's output (unknown at plan).
func urlExpr(url string, later bool) string {
	if later {
		return "terraform_data.url.output"
	}
	return fmt.Sprintf("%q", url)
}

func checksumFor(url string) string {
	if strings.HasPrefix(url, "oci://") {
		return "null"
	}
	return `"` + strings.Repeat("a", 64) + `"`
}
