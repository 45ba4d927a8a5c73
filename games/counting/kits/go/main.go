// A starter counting bot: tit for tat. It counts to 100 first, then to the value the last
// round reached. With three or more seats (an arena) it gets one O line per game and
// answers one choice per game, in their order.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// readMessage returns the lines of the next message, up to its "." line; false at the end
// of input.
func readMessage(in *bufio.Scanner) ([]string, bool) {
	var lines []string
	for in.Scan() {
		line := strings.TrimRight(in.Text(), "\r")
		if line == "." {
			return lines, true
		}
		lines = append(lines, line)
	}
	return lines, false
}

// answer writes the orders and the "." line, and flushes them to the judge.
func answer(out *bufio.Writer, orders ...string) {
	for _, order := range orders {
		fmt.Fprintln(out, order)
	}
	fmt.Fprintln(out, ".")
	out.Flush()
}

func isEnd(message []string) bool {
	for _, line := range message {
		if strings.HasPrefix(line, "END") {
			return true
		}
	}
	return false
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<16), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for {
		message, ok := readMessage(in)
		if !ok || isEnd(message) {
			return
		}
		single := "100" // two seats: the value the L line tells
		var arena []string
		for _, line := range message {
			fields := strings.Fields(line)
			switch {
			case len(fields) >= 2 && fields[0] == "L": // L <value reached> <won: 1 or 0>
				single = fields[1]
			case len(fields) >= 3 && fields[0] == "O": // O <opponent> <run> [<value> <won>]
				if len(fields) >= 4 {
					arena = append(arena, fields[3])
				} else {
					arena = append(arena, "100")
				}
			}
			// R <round> is not needed here.
		}
		if len(arena) > 0 {
			answer(out, strings.Join(arena, ","))
		} else {
			answer(out, single)
		}
	}
}
