package validators

import (
	"strings"
	"testing"
)

func TestCheckNetworkData(t *testing.T) {
	for doc, want := range map[string]string{
		`{"links":[{"id":"l","type":"phy"}],"networks":[{"id":"n","type":"ipv4","link":"l"}],"services":[]}`: "",
		`{}`:                                   "",
		`[]`:                                   "JSON object",
		`{"links":{}}`:                         "want a list of objects",
		`{"links":[1]}`:                        "links[0] is a number",
		`{"links":[{"type":"phy"}]}`:           "links[0] has no id",
		`{"networks":[{"id":"n","link":"x"}]}`: `networks[0] is on link "x"`,
		`{"networks":[{"link":"x"}]}`:          "networks[0] has no id",
		`{"services":"dns"}`:                   `"services" is a string`,
	} {
		err := CheckNetworkData(doc)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", doc, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}

func TestCheckBootFile(t *testing.T) {
	for s, ok := range map[string]bool{
		"http://images.example.com/ipa.kernel":   true,
		"https://images.example.com/ipa.iso":     true,
		"file:///var/lib/ironic/images/ipa.kern": true,
		"file://host/var/ipa.kernel":             false,
		"file://relative/ipa.kernel":             false,
		"file:///a/../etc/passwd":                false,
		"ftp://images/ipa.kernel":                false,
		"/var/lib/ironic/ipa.kernel":             false,
		"http:///ipa.kernel":                     false,
	} {
		if err := CheckBootFile(s); (err == nil) != ok {
			t.Errorf("%s: %v, want ok=%v", s, err, ok)
		}
	}
}
