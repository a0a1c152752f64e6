package validators

import (
	"strings"
	"testing"
)

func TestChecks(t *testing.T) {
	cases := []struct {
		check func(string) error
		in    string
		want  string // "" = valid
	}{
		{LogicalName, "worker-0", ""},
		{LogicalName, "rack1.node_2~a", ""},
		{LogicalName, "worker 0", "characters Ironic refuses"},
		{LogicalName, "wörker", "characters Ironic refuses"},
		{LogicalName, "", "empty"},
		{LogicalName, strings.Repeat("a", 256), "at most 255"},
		{LogicalName, "0b5a5fd4-5a8c-4c3c-9d6b-1d2f3e4a5b6c", "looks like a UUID"},

		{CheckTrait, "CUSTOM_GPU", ""},
		{CheckTrait, "HW_CPU_X86_AVX2", ""},
		{CheckTrait, "custom_gpu", `such as "CUSTOM_GPU"`},
		{CheckTrait, "CUSTOM_gpu-1", `"CUSTOM_GPU_1"`},
		{CheckTrait, "hw_cpu_x86_avx2", `upper case: "HW_CPU_X86_AVX2"`},
		{CheckTrait, "GPU", "neither a standard trait"},
		{CheckTrait, "CUSTOM_", "custom trait is CUSTOM_ followed"},

		{CheckLabelKey, "role", ""},
		{CheckLabelKey, "topology.kubernetes.io/zone", ""},
		{CheckLabelKey, "a_b.c-d", ""},
		{CheckLabelKey, "-role", "not a valid Kubernetes label key"},
		{CheckLabelKey, "role!", "not a valid Kubernetes label key"},
		{CheckLabelKey, "Example.com/x", "lower-case DNS subdomain"},
		{CheckLabelKey, "/x", "prefix"},
		{CheckLabelKey, "a/b/c", "not a valid"},
		{CheckLabelKey, strings.Repeat("x", 64), "at most 63"},
		{CheckLabelKey, "", "empty"},

		{CheckEndpoint, "http://127.0.0.1:6385", ""},
		{CheckEndpoint, "https://ironic.example.com/baremetal", ""},
		{CheckEndpoint, "127.0.0.1:6385", "must start with http:// or https://"},
		{CheckEndpoint, "ftp://h", "must start with http://"},
		{CheckEndpoint, "http://", "has no host"},
		{CheckEndpoint, "http://h:99999", "port 99999"},
		{CheckEndpoint, "http://h/?a=b", "no query"},
		{CheckEndpoint, "http://admin:s3cret@h", "credentials in it"},
	}
	for _, c := range cases {
		err := c.check(c.in)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: unexpected error %v", c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: the error shows the password: %v", c.in, err)
		}
	}
}

func TestStandardTraitsLoaded(t *testing.T) {
	if len(standardTraits) < 300 {
		t.Fatalf("%d standard traits loaded, want the os-traits list (345 in 2.9.0)", len(standardTraits))
	}
}
