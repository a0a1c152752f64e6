package validators

// pullsecret.go reads an image pull secret (BMO's ociAuthSecretName: a
// Docker config JSON, or "user:token") and turns it into what Ironic takes
// as instance_info.image_pull_secret. Errors describe the secret's shape
// and never quote it.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// dockerConfig is the part of a Docker config JSON (~/.docker/config.json,
// a kubernetes.io/dockerconfigjson Secret) a pull needs.
type dockerConfig struct {
	Auths map[string]struct {
		Auth     string `json:"auth"`
		Username string `json:"username"`
		Password string `json:"password"`
	} `json:"auths"`
}

// OCIHost is the registry host (host[:port]) of an oci:// URL; "" when the
// URL is not one.
func OCIHost(imageURL string) string {
	u, err := url.Parse(imageURL)
	if err != nil || !strings.EqualFold(u.Scheme, "oci") {
		return ""
	}
	return u.Host
}

// registryKey reduces an auths key ("quay.io", "https://quay.io/v2/") to
// its host.
func registryKey(k string) string {
	k = strings.TrimSpace(k)
	if i := strings.Index(k, "://"); i >= 0 {
		k = k[i+3:]
	}
	k, _, _ = strings.Cut(k, "/")
	return strings.ToLower(k)
}

// PullSecretForIronic checks secret and returns Ironic's
// instance_info.image_pull_secret for the registry host: the Docker config
// `auth` value, base64 of "user:password". Ironic 2025.1 sends the value as
// a pre-shared secret (HTTP Basic, empty user) to the registry's token
// endpoint, as it does with the `auth` values of its own
// [oci]authentication_config file. With host "" (the URL is not known yet)
// a Docker config must have one entry, which is used.
func PullSecretForIronic(host, secret string) (string, error) {
	s := strings.TrimSpace(secret)
	if s == "" {
		return "", fmt.Errorf("the pull secret is empty")
	}
	if !strings.HasPrefix(s, "{") {
		user, token, ok := strings.Cut(s, ":")
		if !ok || user == "" || token == "" || strings.ContainsAny(s, " \t\r\n") {
			return "", fmt.Errorf(`the pull secret is neither a Docker config JSON ({"auths": {"<registry>": {"auth": "..."}}}) nor "user:token"`)
		}
		return base64.StdEncoding.EncodeToString([]byte(s)), nil
	}
	var cfg dockerConfig
	if err := json.Unmarshal([]byte(s), &cfg); err != nil {
		// The decoder's message may quote the secret: say where instead.
		if se, ok := err.(*json.SyntaxError); ok {
			return "", fmt.Errorf("the pull secret starts like a Docker config JSON but is not valid JSON (syntax error at byte %d)", se.Offset)
		}
		return "", fmt.Errorf(`the pull secret is not a Docker config JSON: "auths" must map registry names to objects with "auth" or "username" and "password"`)
	}
	if len(cfg.Auths) == 0 {
		return "", fmt.Errorf(`the pull secret's Docker config JSON has no "auths" entries`)
	}
	names := make([]string, 0, len(cfg.Auths))
	for k := range cfg.Auths {
		names = append(names, k)
	}
	sort.Strings(names)
	key := ""
	switch {
	case host == "" && len(names) == 1:
		key = names[0]
	case host == "":
		return "", nil // which entry applies is known once the URL is
	default:
		for _, k := range names {
			if registryKey(k) == strings.ToLower(host) {
				key = k
				break
			}
		}
		if key == "" {
			return "", fmt.Errorf(`the pull secret's Docker config JSON has no "auths" entry for the image's registry %q (it has %s)`, host, strings.Join(names, ", "))
		}
	}
	e := cfg.Auths[key]
	if e.Auth != "" {
		raw, err := base64.StdEncoding.DecodeString(e.Auth)
		user, pass, ok := strings.Cut(string(raw), ":")
		if err != nil || !ok || user == "" || pass == "" {
			return "", fmt.Errorf(`the pull secret's "auth" for %q is not base64 of "user:password"`, key)
		}
		return e.Auth, nil
	}
	if e.Username == "" || e.Password == "" {
		return "", fmt.Errorf(`the pull secret's entry for %q has neither "auth" nor "username" and "password"`, key)
	}
	return base64.StdEncoding.EncodeToString([]byte(e.Username + ":" + e.Password)), nil
}
