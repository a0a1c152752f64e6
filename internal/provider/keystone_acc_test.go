package provider_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// The Keystone acceptance tests run against scripts/keystone.sh: a real
// Keystone whose catalog lists a keystone-auth Ironic (not the rig's noauth
// one, and not on Ironic's default port). They read the rig's settings from
// the TEST_KEYSTONE_* variables (`scripts/keystone.sh env`), and set the
// provider's environment themselves, so they do not run in parallel.

type keystoneRig struct {
	AuthURL, IronicEndpoint, IronicLog              string
	Username, Password, UserID, DomainName          string
	DomainID, ProjectName, ProjectID                string
	AppCredID, AppCredSecret                        string
	Region, RegionWithoutIronic, RegionInternalOnly string
	TokenExpiration                                 time.Duration
}

func keystoneTestRig(t *testing.T) keystoneRig {
	t.Helper()
	acctest.PreCheck(t)
	get := func(k string) string { return os.Getenv("TEST_KEYSTONE_" + k) }
	if get("AUTH_URL") == "" {
		t.Skip("keystone acceptance test: TEST_KEYSTONE_AUTH_URL is not set (make test starts Keystone and a keystone-auth Ironic with scripts/keystone.sh and sets it)")
	}
	exp, err := strconv.Atoi(get("TOKEN_EXPIRATION"))
	if err != nil {
		t.Fatalf("TEST_KEYSTONE_TOKEN_EXPIRATION: %v", err)
	}
	r := keystoneRig{
		AuthURL: get("AUTH_URL"), IronicEndpoint: get("IRONIC_ENDPOINT"), IronicLog: get("IRONIC_LOG"),
		Username: get("USERNAME"), Password: get("PASSWORD"), UserID: get("USER_ID"),
		DomainName: get("DOMAIN_NAME"), DomainID: get("DOMAIN_ID"),
		ProjectName: get("PROJECT_NAME"), ProjectID: get("PROJECT_ID"),
		AppCredID: get("APPCRED_ID"), AppCredSecret: get("APPCRED_SECRET"),
		Region: get("REGION"), RegionWithoutIronic: get("REGION_WITHOUT_IRONIC"), RegionInternalOnly: get("REGION_INTERNAL_ONLY"),
		TokenExpiration: time.Duration(exp) * time.Second,
	}
	// Nothing of the test binary's environment leaks in: no endpoint (the
	// noauth rig's BAREMETAL_ENDPOINT would win over the catalog), no OS_*.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OS_") || strings.HasPrefix(k, "BAREMETAL_") {
			t.Setenv(k, "")
		}
	}
	return r
}

// logMark is a position in the keystone-auth Ironic's log.
func (r keystoneRig) logMark(t *testing.T) *acctest.LogMark {
	t.Helper()
	return acctest.MarkLog(t, r.IronicLog)
}

// requestsSince returns the API request lines the keystone-auth Ironic
// logged after mark.
func (r keystoneRig) requestsSince(t *testing.T, mark *acctest.LogMark) []string {
	t.Helper()
	lines, err := mark.Requests()
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// checkIronicSawToken checks that the keystone-auth Ironic, the catalog's
// endpoint, served requests since mark as the rig's user and project
// (keystonemiddleware puts the token's user and project in the request
// context, which Ironic logs), and logs them for the record.
func (r keystoneRig) checkIronicSawToken(t *testing.T, mark *acctest.LogMark, how string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		lines := r.requestsSince(t, mark)
		var ok []string
		example := ""
		for _, l := range lines {
			if strings.Contains(l, r.UserID+" "+r.ProjectID) && served.MatchString(l) {
				ok = append(ok, l)
				if example == "" || strings.Contains(l, `"GET /v1/nodes`) {
					example = l
				}
			}
		}
		if len(ok) == 0 {
			return fmt.Errorf("%s: the catalog's Ironic (%s) served no request as user %s of project %s; it logged:\n%s",
				how, r.IronicEndpoint, r.UserID, r.ProjectID, strings.Join(lines, "\n"))
		}
		t.Logf("%s: the catalog's Ironic %s logged %d requests, %d served with a token of user %s, project %s; e.g.\n  %s",
			how, r.IronicEndpoint, len(lines), len(ok), r.UserID, r.ProjectID, example)
		return nil
	}
}

var served = regexp.MustCompile(`status: 20[0-9]`)

// keystoneBlock is the provider's keystone attribute with every setting of
// the rig's user and project, their domains by name or by id, in region.
func (r keystoneRig) keystoneBlock(domainsByID bool, region string) string {
	key, domain := "name", r.DomainName
	if domainsByID {
		key, domain = "id", r.DomainID
	}
	return fmt.Sprintf(`  keystone = {
    auth_url = %q
    username = %q
    password = %q
    user_domain_%s = %q
    project_name = %q
    project_domain_%s = %q
    region = %q
  }`, r.AuthURL, r.Username, r.Password, key, domain, r.ProjectName, key, domain, region)
}

const hostsData = `
data "baremetal_hosts" "all" {}
`

func keystoneProvider(attrs string) string {
	return fmt.Sprintf(`
provider "baremetal" {
  auth = "keystone"
%s
}
`, attrs)
}

func keystoneStep(r keystoneRig, t *testing.T, how, provider string) resource.TestStep {
	var mark *acctest.LogMark
	return resource.TestStep{
		PreConfig: func() { mark = r.logMark(t) },
		Config:    provider + hostsData,
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttrSet("data.baremetal_hosts.all", "hosts.#"),
			func(s *terraform.State) error { return r.checkIronicSawToken(t, mark, how)(s) },
		),
	}
}

// TestAccKeystone_explicit: the keystone attribute with every setting, the
// user and project in a domain other than Default; Ironic comes from the
// catalog. Then a region whose Ironic has only an internal endpoint (the
// default interface falls back from public to internal), and domains by
// id. (An explicit endpoint over the catalog is tested without Keystone's
// cost, in internal/ironic/clients.)
func TestAccKeystone_explicit(t *testing.T) {
	r := keystoneTestRig(t)

	// Ironic refuses a request without a token for real.
	resp, err := http.Get(r.IronicEndpoint + "/v1/nodes")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /v1/nodes without a token: %s, want 401", resp.Status)
	}

	byName := r.keystoneBlock(false, r.Region)
	byID := r.keystoneBlock(true, r.RegionInternalOnly)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			keystoneStep(r, t, "explicit settings", keystoneProvider(byName)),
			keystoneStep(r, t, "explicit settings, domains by id, internal-only region", keystoneProvider(byID)),
		},
	})
}

// openrc sets the variables of a standard openrc.
func (r keystoneRig) openrc(t *testing.T) {
	for k, v := range map[string]string{
		"OS_AUTH_URL": r.AuthURL, "OS_USERNAME": r.Username, "OS_PASSWORD": r.Password,
		"OS_PROJECT_NAME": r.ProjectName, "OS_USER_DOMAIN_NAME": r.DomainName, "OS_PROJECT_DOMAIN_NAME": r.DomainName,
		"OS_REGION_NAME": r.Region, "OS_IDENTITY_API_VERSION": "3", "OS_INTERFACE": "public",
	} {
		t.Setenv(k, v)
	}
}

// TestAccKeystone_openrc: a sourced openrc and `auth = "keystone"`, nothing
// else. The apply creates and powers a host and outlives the token
// lifetime of the rig's Keystone: Ironic refuses the expired token (401)
// and the provider authenticates again.
func TestAccKeystone_openrc(t *testing.T) {
	r := keystoneTestRig(t)
	r.openrc(t)
	name := acctest.Name("acc-keystone")
	var mark *acctest.LogMark
	var start time.Time
	host := keystoneProvider("") + fmt.Sprintf(`
resource "baremetal_host" "test" {
  name        = %q
  driver      = "fake-hardware"
  driver_info = {}
  online      = true
}
`, name)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { mark, start = r.logMark(t), time.Now() },
				Config:    host,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
					resource.TestCheckResourceAttr("baremetal_host.test", "powered_on", "true"),
					func(s *terraform.State) error { return r.checkIronicSawToken(t, mark, "openrc")(s) },
					func(*terraform.State) error {
						took := time.Since(start)
						if took <= r.TokenExpiration {
							return fmt.Errorf("the apply took %s, not longer than a token lives (%s): it proves nothing about renewal", took, r.TokenExpiration)
						}
						var refused, served int
						for _, l := range r.requestsSince(t, mark) {
							switch {
							case strings.Contains(l, "status: 401"):
								refused++
							case strings.Contains(l, r.UserID+" "+r.ProjectID):
								served++
							}
						}
						// Tokens are only renewed when Ironic refuses an
						// expired one.
						if refused == 0 {
							return fmt.Errorf("the apply took %s with tokens that live %s, yet Ironic refused no expired token", took, r.TokenExpiration)
						}
						t.Logf("token renewal: the apply took %s with tokens that live %s; Ironic refused %d requests with an expired token and served %d with valid ones",
							took.Round(time.Second), r.TokenExpiration, refused, served)
						return nil
					},
				),
			},
		},
	})
}

// TestAccKeystone_cloudsYAML: OS_CLOUD and OS_CLIENT_CONFIG_FILE name a
// cloud of a clouds.yaml. (As with the OpenStack CLI, a secure.yaml is
// looked for in the standard places, not beside OS_CLIENT_CONFIG_FILE.)
func TestAccKeystone_cloudsYAML(t *testing.T) {
	r := keystoneTestRig(t)
	dir := t.TempDir()
	clouds := filepath.Join(dir, "clouds.yaml")
	yaml := fmt.Sprintf(`clouds:
  rig:
    auth:
      auth_url: %s
      username: %s
      password: %s
      user_domain_name: %s
      project_name: %s
      project_domain_name: %s
    region_name: %s
    interface: public
    identity_api_version: 3
`, r.AuthURL, r.Username, r.Password, r.DomainName, r.ProjectName, r.DomainName, r.Region)
	if err := os.WriteFile(clouds, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OS_CLIENT_CONFIG_FILE", clouds)
	t.Setenv("OS_CLOUD", "rig")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			keystoneStep(r, t, "clouds.yaml (OS_CLOUD)", keystoneProvider("")),
		},
	})
}

// TestAccKeystone_applicationCredential: OS_APPLICATION_CREDENTIAL_ID and
// _SECRET, as an openrc of an application credential sets them.
func TestAccKeystone_applicationCredential(t *testing.T) {
	r := keystoneTestRig(t)
	for k, v := range map[string]string{
		"OS_AUTH_URL": r.AuthURL, "OS_AUTH_TYPE": "v3applicationcredential", "OS_REGION_NAME": r.Region,
		"OS_APPLICATION_CREDENTIAL_ID": r.AppCredID, "OS_APPLICATION_CREDENTIAL_SECRET": r.AppCredSecret,
	} {
		t.Setenv(k, v)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			keystoneStep(r, t, "application credential", keystoneProvider("")),
		},
	})
}

// wrapped matches text as Terraform prints it, wrapped at any space.
func wrapped(text string) *regexp.Regexp {
	return regexp.MustCompile(strings.Join(strings.Fields(regexp.QuoteMeta(text)), `\s+`))
}

// TestAccKeystone_errors: a wrong password fails with Keystone's 401 and
// without the password; a region without Ironic names the region and the
// interfaces looked for.
func TestAccKeystone_errors(t *testing.T) {
	r := keystoneTestRig(t)
	r.openrc(t)
	t.Setenv("OS_PASSWORD", "not-the-Passw0rd")
	wrong := regexp.MustCompile(wrapped("keystone authentication at "+r.AuthURL+" failed:").String() + `(?s).*got\s+401\s+instead`)
	t.Setenv("OS_REGION_NAME", r.RegionWithoutIronic)
	t.Setenv("OS_INTERFACE", "") // the default: public, else internal
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: keystoneProvider("") + hostsData, ExpectError: wrong},
			{
				Config: keystoneProvider(fmt.Sprintf("  keystone = { password = %q }", r.Password)) + hostsData,
				ExpectError: wrapped(`the keystone catalog has no Ironic (service type baremetal) endpoint in region "` + r.RegionWithoutIronic +
					`" with interface public or internal; its baremetal endpoints are: RegionOne public, RegionOne internal, RegionThree internal`),
			},
		},
	})
}
