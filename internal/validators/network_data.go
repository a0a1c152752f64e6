package validators

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// CheckNetworkData checks an OpenStack network_data.json document as
// baremetal_network_data renders it: a JSON object whose links, networks
// and services are lists of objects, every link and network with an id,
// and every network on a link the document defines.
func CheckNetworkData(s string) error {
	doc, err := ParseJSONObject(s)
	if err != nil {
		return err
	}
	list := func(key string) ([]map[string]any, error) {
		raw, ok := doc[key]
		if !ok || raw == nil {
			return nil, nil
		}
		items, ok := raw.([]any)
		if !ok {
			return nil, fmt.Errorf("%q is %s, want a list of objects", key, jsonKind(raw))
		}
		out := make([]map[string]any, 0, len(items))
		for i, it := range items {
			m, ok := it.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s[%d] is %s, want an object", key, i, jsonKind(it))
			}
			out = append(out, m)
		}
		return out, nil
	}
	links, err := list("links")
	if err != nil {
		return err
	}
	ids := map[string]bool{}
	for i, l := range links {
		id, _ := l["id"].(string)
		if id == "" {
			return fmt.Errorf("links[%d] has no id", i)
		}
		ids[id] = true
	}
	networks, err := list("networks")
	if err != nil {
		return err
	}
	for i, n := range networks {
		if id, _ := n["id"].(string); id == "" {
			return fmt.Errorf("networks[%d] has no id", i)
		}
		if link, _ := n["link"].(string); !ids[link] {
			return fmt.Errorf("networks[%d] is on link %q, which links does not define", i, link)
		}
	}
	if _, err := list("services"); err != nil {
		return err
	}
	return nil
}

// NetworkData accepts network_data.json, such as baremetal_network_data's
// json.
func NetworkData() validator.String {
	return New("OpenStack network_data.json (a JSON object with links, networks, services), such as baremetal_network_data's json", CheckNetworkData)
}

// CheckBootFile accepts what Ironic can fetch a deploy kernel, ramdisk,
// ISO or bootloader from: an http(s) URL with a host, or a file:// URL of
// an absolute path on the conductor.
func CheckBootFile(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("not a URL: %v", err)
	}
	switch u.Scheme {
	case "http", "https":
		if u.Host == "" {
			return fmt.Errorf("%q has no host", s)
		}
	case "file":
		if u.Host != "" || !filepath.IsAbs(u.Path) || strings.Contains(u.Path, "/../") {
			return fmt.Errorf("%q: a file URL needs an absolute path on the conductor (file:///var/lib/ironic/images/ipa.kernel)", s)
		}
	default:
		return fmt.Errorf("%q: want an http://, https:// or file:// URL", s)
	}
	return nil
}

// BootFile validates CheckBootFile.
func BootFile() validator.String {
	return New("an http(s) URL or a file:// URL of an absolute path on the conductor", CheckBootFile)
}
