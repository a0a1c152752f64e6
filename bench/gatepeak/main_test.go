package main

import (
	"fmt"
	"strings"
	"testing"
)

func line(node int, to, from string) string {
	return fmt.Sprintf(`2026-12-01 20:14:46.081 3626 INFO ironic.conductor.task_manager [None req-0b0d - - - - - -] `+
		`Node 00000000-0000-0000-0000-%012d moved to provision state "%s" from state "%s"; target provision state is "manageable"`, node, to, from)
}

func TestPeak(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  int
	}{
		{"no transitions", []string{"GET /v1/nodes status: 200"}, 0},
		{"one node through inspection and cleaning", []string{
			line(1, "verifying", "enroll"), line(1, "manageable", "verifying"),
			line(1, "inspecting", "manageable"), line(1, "manageable", "inspecting"),
			line(1, "cleaning", "manageable"), line(1, "clean wait", "cleaning"), line(1, "available", "clean wait"),
		}, 1},
		{"overlapping, then apart", []string{
			line(1, "inspecting", "manageable"), line(2, "inspecting", "manageable"), line(3, "cleaning", "manageable"),
			line(1, "manageable", "inspecting"), line(2, "manageable", "inspecting"),
			line(4, "inspecting", "manageable"), line(3, "available", "cleaning"), line(4, "manageable", "inspecting"),
		}, 3},
		{"a node already busy when the lines begin", []string{
			line(1, "clean wait", "cleaning"), line(2, "inspecting", "manageable"), line(1, "available", "clean wait"),
		}, 2},
		{"a node leaving a gate state it was first seen in", []string{
			line(1, "available", "cleaning"), line(2, "inspecting", "manageable"),
		}, 1},
		{"only a node leaving a gate state", []string{line(1, "manageable", "inspecting")}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := peak(strings.NewReader(strings.Join(c.lines, "\n")))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("peak = %d, want %d", got, c.want)
			}
		})
	}
}
