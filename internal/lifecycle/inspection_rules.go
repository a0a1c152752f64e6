package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// This file is Ironic's inspection rules (API 1.96+,
// baremetal_inspection_rule): conditions on what built-in inspection found
// (the inventory and plugin data) and the actions Ironic takes on the node
// when they all hold (set the resource class, add a trait, set properties
// or extra, ...). The operators and actions, with their arguments, are the
// ones Ironic 2025.1 accepts (ironic/common/inspection_rules/operators.py
// and actions.py), so that a rule Ironic would refuse is refused at
// terraform validate.

// RuleCondition is one condition of a rule: Op (an operator, "!" before it
// inverts it), its Args (a JSON array or object), and an optional Loop
// (array or object) with Multiple (any, all, first, last) saying how the
// loop's results combine.
type RuleCondition struct {
	Op       string
	Args     any
	Loop     any
	Multiple string
}

// RuleAction is one action of a rule: Op, its Args (array or object) and
// an optional Loop.
type RuleAction struct {
	Op   string
	Args any
	Loop any
}

// InspectionRule is an Ironic inspection rule.
type InspectionRule struct {
	// ID is Ironic's UUID ("" before it is created).
	ID          string
	Description string
	// Phase is when the rule runs: "main" (the one phase of 2025.1).
	Phase string
	// Priority orders the rules, highest first: 0 to 9999.
	Priority int
	// Sensitive hides the conditions and actions from every read (Ironic
	// answers null for them) and cannot be unset.
	Sensitive  bool
	Conditions []RuleCondition
	Actions    []RuleAction
}

// InspectionRuleStore keeps inspection rules in Ironic. Implemented by
// internal/ironic.
type InspectionRuleStore interface {
	CreateInspectionRule(ctx context.Context, r InspectionRule) (InspectionRule, error)
	// InspectionRule reads rule id; found is false when there is none.
	// A sensitive rule comes back without conditions and actions.
	InspectionRule(ctx context.Context, id string) (r InspectionRule, found bool, err error)
	UpdateInspectionRule(ctx context.Context, id string, r InspectionRule) (InspectionRule, error)
	// DeleteInspectionRule deletes rule id; one that is gone already is no error.
	DeleteInspectionRule(ctx context.Context, id string) error
}

// ruleSignature is what an operator or action takes: its required and
// optional arguments, in order (a list of arguments fills them in that
// order).
type ruleSignature struct{ required, optional []string }

func sig(required []string, optional ...string) ruleSignature {
	return ruleSignature{required: required, optional: optional}
}

// RuleOperators are Ironic 2025.1's condition operators.
var ruleOperators = map[string]ruleSignature{
	"eq":       sig([]string{"values"}, "force_strings"),
	"lt":       sig([]string{"values"}, "force_strings"),
	"gt":       sig([]string{"values"}, "force_strings"),
	"is-empty": sig([]string{"value"}),
	"in-net":   sig([]string{"address", "subnet"}),
	"matches":  sig([]string{"value", "regex"}),
	"contains": sig([]string{"value", "regex"}),
	"one-of":   sig([]string{"value"}, "values"),
	"is-none":  sig([]string{"value"}),
	"is-true":  sig([]string{"value"}),
	"is-false": sig([]string{"value"}),
}

// ruleActions are Ironic 2025.1's actions (the plugin data ones get the
// plugin data from Ironic, not from the rule).
var ruleActions = map[string]ruleSignature{
	"fail":                  sig([]string{"msg"}),
	"set-attribute":         sig([]string{"path", "value"}),
	"set-capability":        sig([]string{"name", "value"}),
	"unset-capability":      sig([]string{"name"}),
	"extend-attribute":      sig([]string{"path", "value"}, "unique"),
	"add-trait":             sig([]string{"name"}),
	"remove-trait":          sig([]string{"name"}),
	"set-plugin-data":       sig([]string{"path", "value"}),
	"extend-plugin-data":    sig([]string{"path", "value"}, "unique"),
	"unset-plugin-data":     sig([]string{"path"}),
	"log":                   sig([]string{"msg"}, "level"),
	"del-attribute":         sig([]string{"path"}),
	"set-port-attribute":    sig([]string{"port_id", "path", "value"}),
	"extend-port-attribute": sig([]string{"port_id", "path", "value"}, "unique"),
	"del-port-attribute":    sig([]string{"port_id", "path"}),
}

// RuleMultiples are the values of a condition's Multiple.
var RuleMultiples = []string{"any", "all", "first", "last"}

// RulePhases are the phases of Ironic 2025.1.
var RulePhases = []string{"main"}

// RuleOperatorNames and RuleActionNames are the names Ironic 2025.1
// accepts, sorted.
func RuleOperatorNames() []string { return ruleNames(ruleOperators) }

// RuleActionNames are the action names Ironic 2025.1 accepts, sorted.
func RuleActionNames() []string { return ruleNames(ruleActions) }

func ruleNames(m map[string]ruleSignature) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// CheckRuleOperator checks a condition's operator: one of Ironic's, with
// "!" before it to invert it.
func CheckRuleOperator(op string) error {
	if _, ok := ruleOperators[strings.TrimPrefix(op, "!")]; !ok {
		return fmt.Errorf("%q is not an inspection rule operator of Ironic 2025.1; the operators are %s, each of them "+
			"inverted by a leading ! (e.g. !eq)", op, strings.Join(RuleOperatorNames(), ", "))
	}
	return nil
}

// CheckRuleAction checks an action's name.
func CheckRuleAction(op string) error {
	if _, ok := ruleActions[op]; !ok {
		return fmt.Errorf("%q is not an inspection rule action of Ironic 2025.1; the actions are %s", op,
			strings.Join(RuleActionNames(), ", "))
	}
	return nil
}

// CheckRuleConditionArgs checks the arguments of a condition whose operator
// CheckRuleOperator accepted, as Ironic does: a JSON array (in the
// operator's order) or object with every required argument and nothing
// else.
func CheckRuleConditionArgs(op string, args any) error {
	s, ok := ruleOperators[strings.TrimPrefix(op, "!")]
	if !ok {
		return nil
	}
	return checkRuleArgs("operator "+op, s, args)
}

// CheckRuleActionArgs checks the arguments of an action CheckRuleAction
// accepted.
func CheckRuleActionArgs(op string, args any) error {
	s, ok := ruleActions[op]
	if !ok {
		return nil
	}
	return checkRuleArgs("action "+op, s, args)
}

func checkRuleArgs(what string, s ruleSignature, args any) error {
	takes := strings.Join(s.required, ", ")
	if len(s.optional) > 0 {
		takes += " and optionally " + strings.Join(s.optional, ", ")
	}
	switch a := args.(type) {
	case []any:
		if len(a) < len(s.required) {
			return fmt.Errorf("%s takes %s: %d arguments given, missing %s", what, takes, len(a),
				strings.Join(s.required[len(a):], ", "))
		}
		if n := len(s.required) + len(s.optional); len(a) > n {
			return fmt.Errorf("%s takes %s: %d arguments given, at most %d", what, takes, len(a), n)
		}
	case map[string]any:
		var missing, unexpected []string
		for _, r := range s.required {
			if _, ok := a[r]; !ok {
				missing = append(missing, r)
			}
		}
		for k := range a {
			if !slices.Contains(s.required, k) && !slices.Contains(s.optional, k) {
				unexpected = append(unexpected, k)
			}
		}
		sort.Strings(unexpected)
		var msg []string
		if len(missing) > 0 {
			msg = append(msg, "missing "+strings.Join(missing, ", "))
		}
		if len(unexpected) > 0 {
			msg = append(msg, "unexpected "+strings.Join(unexpected, ", "))
		}
		if len(msg) > 0 {
			return fmt.Errorf("%s takes %s: %s", what, takes, strings.Join(msg, "; "))
		}
	default:
		return fmt.Errorf("%s takes its arguments as a JSON array or object (jsonencode), not %T", what, args)
	}
	return nil
}

// CheckRuleLoop checks a loop: a JSON array or object.
func CheckRuleLoop(loop any) error {
	switch loop.(type) {
	case nil, []any, map[string]any:
		return nil
	}
	return errors.New("a loop is a JSON array or object (jsonencode), its items reachable as {item} in the arguments")
}

// CheckInspectionRule checks a whole rule (what Ironic's validation
// checks): phase, priority, at least one action, and every condition and
// action. Attribute-level checks report the same problems at their
// attributes; this is for the apply and for tests.
func CheckInspectionRule(r InspectionRule) error {
	if r.Phase != "" && !slices.Contains(RulePhases, r.Phase) {
		return fmt.Errorf("phase %q: Ironic 2025.1's phases are %s", r.Phase, strings.Join(RulePhases, ", "))
	}
	if r.Priority < 0 || r.Priority > 9999 {
		return fmt.Errorf("priority %d is not between 0 and 9999", r.Priority)
	}
	if len(r.Description) > 255 {
		return errors.New("the description is longer than 255 characters")
	}
	if len(r.Actions) == 0 {
		return errors.New("no actions: a rule has at least one")
	}
	for i, c := range r.Conditions {
		for _, err := range []error{CheckRuleOperator(c.Op), CheckRuleConditionArgs(c.Op, c.Args), CheckRuleLoop(c.Loop)} {
			if err != nil {
				return fmt.Errorf("condition %d: %w", i, err)
			}
		}
		if c.Multiple != "" && !slices.Contains(RuleMultiples, c.Multiple) {
			return fmt.Errorf("condition %d: multiple %q is not one of %s", i, c.Multiple, strings.Join(RuleMultiples, ", "))
		}
	}
	for i, a := range r.Actions {
		for _, err := range []error{CheckRuleAction(a.Op), CheckRuleActionArgs(a.Op, a.Args), CheckRuleLoop(a.Loop)} {
			if err != nil {
				return fmt.Errorf("action %d: %w", i, err)
			}
		}
	}
	return nil
}
