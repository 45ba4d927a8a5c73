// A starter roshambolo bot: counts the shapes in every round it observes and plays the
// shape that beats the most common one. Shapes: 1 rock, 2 paper, 3 scissors.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
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
	seen := [4]int{}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<16), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for {
		message, ok := readMessage(in)
		if !ok || isEnd(message) {
			return
		}
		playNow := false
		for _, line := range message {
			fields := strings.Fields(line)
			if len(fields) == 0 {
				continue
			}
			switch fields[0] {
			case "O": // O <game> <a id> <b id> <a play> <b play> <result>
				if len(fields) < 6 {
					continue
				}
				for _, field := range fields[4:6] {
					if shape, err := strconv.Atoi(field); err == nil && shape >= 1 && shape <= 3 {
						seen[shape]++
					}
				}
			case "P": // P <game> <my id> <opponent id>: play now
				playNow = true
			}
		}
		if playNow {
			most := 1
			for shape := 2; shape <= 3; shape++ {
				if seen[shape] > seen[most] {
					most = shape
				}
			}
			answer(out, strconv.Itoa(most%3+1)) // what beats it: 1 -> 2 -> 3 -> 1
		}
	}
}
