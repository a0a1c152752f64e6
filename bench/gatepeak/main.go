// Command gatepeak reads Ironic log lines on standard input and prints the
// most nodes that were in the capacity gate's states (inspecting, cleaning,
// deploying, deleting and their waits) at once, replaying every "moved to
// provision state" line the conductor wrote.
//
// The bench (scripts/bench.sh) feeds it the lines each measured step added
// to Ironic's log. Sampling the API instead (a 500-node list every second)
// took about a tenth of the one Ironic process's time during the 500-host
// runs, and slowed the measured clients with it.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
)

// gateStates are the Ironic provision states a node holds a gate slot in.
var gateStates = map[string]bool{
	"inspecting": true, "inspect wait": true,
	"cleaning": true, "clean wait": true,
	"deploying": true, "wait call-back": true,
	"deleting": true,
}

var moved = regexp.MustCompile(`Node ([0-9a-f-]{36}) moved to provision state "([^"]*)" from state "([^"]*)"`)

// peak replays the transitions in r. A node first seen leaving a gate
// state was in it when the lines begin.
func peak(r io.Reader) (int, error) {
	state := map[string]string{}
	busy, most := 0, 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		m := moved.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		node, to, from := m[1], m[2], m[3]
		prev, seen := state[node]
		if !seen {
			prev = from
			if gateStates[from] {
				busy++
				most = max(most, busy)
			}
		}
		if gateStates[prev] {
			busy--
		}
		if gateStates[to] {
			busy++
		}
		state[node] = to
		most = max(most, busy)
	}
	return most, sc.Err()
}

func main() {
	n, err := peak(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gatepeak:", err)
		os.Exit(1)
	}
	fmt.Println(n)
}
