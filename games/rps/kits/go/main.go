// A starter rps bot: plays what beats the enemy's last move (rock on the first turn).
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

var beats = map[string]string{"R": "P", "P": "S", "S": "R"}

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
		move := "R"
		for _, line := range message {
			fields := strings.Fields(line)
			// L <my last move> <enemy's last move>
			if len(fields) == 3 && fields[0] == "L" && beats[fields[2]] != "" {
				move = beats[fields[2]]
			}
			// Y (my id), E (enemy id) and keys added later are not needed here.
		}
		answer(out, move)
	}
}
