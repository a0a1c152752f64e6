package main

import (
	"os"
	"testing"
)

func TestQuietUnreadLogs(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  map[string]string
		want map[string]string // after quietUnreadLogs; "" = unset
	}{
		{"nothing set: every logger off", nil, map[string]string{
			"TF_LOG": "", "TF_LOG_PROVIDER": "off", "TF_LOG_PROVIDER_BAREMETAL": "off",
			"TF_LOG_SDK": "off", "TF_LOG_SDK_PROTO": "off", "TF_LOG_SDK_FRAMEWORK": "off",
		}},
		{"TF_LOG set: untouched", map[string]string{"TF_LOG": "debug"}, map[string]string{
			"TF_LOG": "debug", "TF_LOG_PROVIDER": "", "TF_LOG_SDK": "", "TF_LOG_SDK_FRAMEWORK": "",
		}},
		{"TF_LOG_PROVIDER set: untouched", map[string]string{"TF_LOG_PROVIDER": "trace"}, map[string]string{
			"TF_LOG_PROVIDER": "trace", "TF_LOG_SDK": "", "TF_LOG_SDK_PROTO": "",
		}},
		{"one SDK level set: untouched", map[string]string{"TF_LOG_SDK_PROTO": "info"}, map[string]string{
			"TF_LOG_SDK_PROTO": "info", "TF_LOG_SDK": "", "TF_LOG_PROVIDER_BAREMETAL": "",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range logSwitches {
				t.Setenv(k, "")
				_ = os.Unsetenv(k)
			}
			for k, v := range tc.set {
				t.Setenv(k, v)
			}
			quietUnreadLogs()
			for k, want := range tc.want {
				if got := os.Getenv(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
		})
	}
}
