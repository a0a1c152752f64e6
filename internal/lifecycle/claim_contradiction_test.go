package lifecycle

import (
	"strings"
	"testing"
)

func TestSelectorContradiction(t *testing.T) {
	e := func(k, op string, v ...string) LabelExpression {
		return LabelExpression{Key: k, Operator: op, Values: v}
	}
	cases := []struct {
		name string
		sel  Selector
		want string // "" = no contradiction
	}{
		{"empty", Selector{}, ""},
		{"label and In agree", Selector{MatchLabels: map[string]string{"role": "w"}, MatchExpressions: []LabelExpression{e("role", OpIn, "w", "x")}}, ""},
		{"NotIn of another value", Selector{MatchLabels: map[string]string{"role": "w"}, MatchExpressions: []LabelExpression{e("role", OpNotIn, "x")}}, ""},
		{"In ranges overlap", Selector{MatchExpressions: []LabelExpression{e("z", OpIn, "a", "b"), e("z", OpIn, "b", "c")}}, ""},
		{"NotIn and DoesNotExist", Selector{MatchExpressions: []LabelExpression{e("z", OpNotIn, "a"), e("z", OpDoesNotExist)}}, ""},
		{"different keys", Selector{MatchLabels: map[string]string{"a": "1"}, MatchExpressions: []LabelExpression{e("b", OpDoesNotExist)}}, ""},

		{"label vs NotIn", Selector{MatchLabels: map[string]string{"role": "w"}, MatchExpressions: []LabelExpression{e("role", OpNotIn, "w")}},
			`label "role": match_labels role = "w" and match_expressions[0] role NotIn ["w"] contradict`},
		{"label vs In", Selector{MatchLabels: map[string]string{"role": "w"}, MatchExpressions: []LabelExpression{e("role", OpIn, "x")}}, `label "role"`},
		{"label vs DoesNotExist", Selector{MatchLabels: map[string]string{"role": "w"}, MatchExpressions: []LabelExpression{e("role", OpDoesNotExist)}}, "DoesNotExist contradict"},
		{"Exists vs DoesNotExist", Selector{MatchExpressions: []LabelExpression{e("z", OpExists), e("z", OpDoesNotExist)}}, `match_expressions[0] z Exists and match_expressions[1] z DoesNotExist`},
		{"disjoint In", Selector{MatchExpressions: []LabelExpression{e("z", OpIn, "a"), e("z", OpIn, "b")}}, "no host can match"},
		{"In covered by NotIn", Selector{MatchExpressions: []LabelExpression{e("z", OpIn, "a", "b"), e("z", OpNotIn, "a", "b", "c")}}, `label "z"`},
		{"In vs DoesNotExist", Selector{MatchExpressions: []LabelExpression{e("z", OpIn, "a"), e("z", OpDoesNotExist)}}, `label "z"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.sel.Contradiction()
			if c.want == "" {
				if err != nil {
					t.Fatalf("unexpected contradiction: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Contradiction() = %v, want it to contain %q", err, c.want)
			}
		})
	}
}
