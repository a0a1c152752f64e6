package validators

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// The checks of Ironic steps (baremetal_host_steps, baremetal_runbook) and
// of inspection rules (baremetal_inspection_rule), at terraform validate.

// StepName accepts an Ironic step name: lower-case letters, digits and _
// (the check of lifecycle.ValidateManualSteps).
func StepName() validator.String {
	return New("an Ironic step name: lower case letters, digits and _", func(s string) error {
		return oneStep(lifecycle.ManualStep{Interface: "deploy", Step: s})
	})
}

// StepInterface accepts an Ironic driver interface name, as
// lifecycle.ValidateManualSteps does.
func StepInterface() validator.String {
	return New("an Ironic interface name: lower case letters, digits and _", func(s string) error {
		return oneStep(lifecycle.ManualStep{Interface: s, Step: "x"})
	})
}

// oneStep checks one step, its message without the step's index.
func oneStep(st lifecycle.ManualStep) error {
	if err := lifecycle.ValidateManualSteps([]lifecycle.ManualStep{st}); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "step 0: "))
	}
	return nil
}

// RunbookInterface accepts the driver interfaces a runbook step may name.
func RunbookInterface() validator.String {
	return New("a driver interface of runbook steps", func(s string) error {
		if err := oneStep(lifecycle.ManualStep{Interface: s, Step: "x"}); err != nil {
			return err
		}
		if !slices.Contains(lifecycle.RunbookInterfaces, s) {
			return fmt.Errorf("interface %q is not one a runbook step takes: %s", s, strings.Join(lifecycle.RunbookInterfaces, ", "))
		}
		return nil
	})
}

// RunbookName accepts a runbook name: a custom trait.
func RunbookName() validator.String {
	return New("a custom trait name (CUSTOM_...)", lifecycle.CheckRunbookName)
}

// StepArgs accepts a step's arguments: a JSON object (what
// jsonencode({ ... }) writes).
func StepArgs() validator.String {
	return New("a JSON object", func(s string) error {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
			return fmt.Errorf("%q is not a JSON object: write it with jsonencode({ ... })", s)
		}
		return nil
	})
}

// JSONArrayOrObject accepts a JSON array or object.
func JSONArrayOrObject() validator.String {
	return New("a JSON array or object", func(s string) error {
		_, err := DecodeArrayOrObject(s)
		return err
	})
}

// DecodeArrayOrObject decodes s, a JSON array or object.
func DecodeArrayOrObject(s string) (any, error) {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("%q is not JSON: write it with jsonencode([ ... ]) or jsonencode({ ... })", s)
	}
	switch v.(type) {
	case []any, map[string]any:
		return v, nil
	}
	return nil, fmt.Errorf("%q is not a JSON array or object: write it with jsonencode([ ... ]) or jsonencode({ ... })", s)
}

// RuleOperator accepts an inspection rule condition operator of Ironic
// 2025.1, "!" before it inverting it.
func RuleOperator() validator.String {
	return New("an inspection rule operator of Ironic 2025.1", lifecycle.CheckRuleOperator)
}

// RuleAction accepts an inspection rule action of Ironic 2025.1.
func RuleAction() validator.String {
	return New("an inspection rule action of Ironic 2025.1", lifecycle.CheckRuleAction)
}
