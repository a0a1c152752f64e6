package lifecycle_test

import (
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

func TestCheckRunbook(t *testing.T) {
	step := lifecycle.RunbookStep{Interface: "bios", Step: "factory_reset"}
	cases := []struct {
		rb   lifecycle.Runbook
		want string
	}{
		{lifecycle.Runbook{Name: "CUSTOM_OK", Steps: []lifecycle.RunbookStep{step}}, ""},
		{lifecycle.Runbook{Name: "custom_ok", Steps: []lifecycle.RunbookStep{step}}, `"custom_ok" is not a custom trait name`},
		{lifecycle.Runbook{Name: "HW_CPU_X86_AVX2", Steps: []lifecycle.RunbookStep{step}}, "is not a custom trait name"},
		{lifecycle.Runbook{Name: "CUSTOM_OK"}, "no steps"},
		{lifecycle.Runbook{Name: "CUSTOM_OK", Steps: []lifecycle.RunbookStep{{Interface: "inspect", Step: "x"}}},
			`step 0: interface "inspect" is not one a runbook step takes`},
		{lifecycle.Runbook{Name: "CUSTOM_OK", Steps: []lifecycle.RunbookStep{{Interface: "bios", Step: "Apply"}}},
			`step 0: step "Apply" is not an Ironic step name`},
		{lifecycle.Runbook{Name: "CUSTOM_OK", Steps: []lifecycle.RunbookStep{step, {Interface: "bios", Step: "factory_reset", Order: 1}}},
			"bios.factory_reset is in the runbook twice"},
		{lifecycle.Runbook{Name: "CUSTOM_OK", Steps: []lifecycle.RunbookStep{{Interface: "bios", Step: "x", Order: -1}}}, "order -1 is negative"},
		{lifecycle.Runbook{Name: "CUSTOM_OK", Steps: []lifecycle.RunbookStep{step}, Public: true, Owner: "p"}, "public or owner, not both"},
	}
	for _, tc := range cases {
		err := lifecycle.CheckRunbook(tc.rb)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.rb, err, tc.want)
		}
	}
	if err := lifecycle.ValidateManualSteps([]lifecycle.ManualStep{{Runbook: "CUSTOM_OK"}, {Interface: "bios", Step: "x"}}); err == nil {
		t.Error("a runbook with steps passes")
	}
	err := lifecycle.CheckRunbookTraits("worker-0", "CUSTOM_FW", []string{"CUSTOM_GPU"})
	if err == nil || err.Error() != `host worker-0 does not carry the trait CUSTOM_FW, so Ironic refuses to run runbook CUSTOM_FW on it `+
		`(its traits: CUSTOM_GPU). Add "CUSTOM_FW" to the traits of its baremetal_host to approve the runbook for it` {
		t.Errorf("trait error: %v", err)
	}
}

func TestCheckInspectionRule(t *testing.T) {
	ok := lifecycle.InspectionRule{
		Conditions: []lifecycle.RuleCondition{{Op: "!eq", Args: []any{"a", "b"}}, {Op: "matches", Args: map[string]any{"value": "x", "regex": "y"}, Loop: []any{1}, Multiple: "all"}},
		Actions:    []lifecycle.RuleAction{{Op: "add-trait", Args: []any{"CUSTOM_X"}}, {Op: "log", Args: map[string]any{"msg": "m", "level": "info"}}},
	}
	if err := lifecycle.CheckInspectionRule(ok); err != nil {
		t.Fatal(err)
	}
	mod := func(f func(r *lifecycle.InspectionRule)) lifecycle.InspectionRule {
		r := ok
		r.Conditions = append([]lifecycle.RuleCondition(nil), ok.Conditions...)
		r.Actions = append([]lifecycle.RuleAction(nil), ok.Actions...)
		f(&r)
		return r
	}
	cases := []struct {
		r    lifecycle.InspectionRule
		want string
	}{
		{mod(func(r *lifecycle.InspectionRule) { r.Conditions[0].Op = "greater-than" }), `condition 0: "greater-than" is not an inspection rule operator of Ironic 2025.1; the operators are contains, eq, gt, in-net`},
		{mod(func(r *lifecycle.InspectionRule) { r.Actions[0].Op = "set-traits" }), `action 0: "set-traits" is not an inspection rule action of Ironic 2025.1`},
		{mod(func(r *lifecycle.InspectionRule) { r.Actions[1].Args = map[string]any{"message": "m"} }), "action 1: action log takes msg and optionally level: missing msg; unexpected message"},
		{mod(func(r *lifecycle.InspectionRule) { r.Conditions[1].Args = []any{"x"} }), "condition 1: operator matches takes value, regex: 1 arguments given, missing regex"},
		{mod(func(r *lifecycle.InspectionRule) { r.Conditions[0].Args = "a" }), "as a JSON array or object"},
		{mod(func(r *lifecycle.InspectionRule) { r.Conditions[1].Multiple = "most" }), `multiple "most"`},
		{mod(func(r *lifecycle.InspectionRule) { r.Actions = nil }), "no actions"},
		{mod(func(r *lifecycle.InspectionRule) { r.Priority = 10000 }), "priority 10000"},
		{mod(func(r *lifecycle.InspectionRule) { r.Phase = "early" }), `phase "early"`},
	}
	for _, tc := range cases {
		err := lifecycle.CheckInspectionRule(tc.r)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}
