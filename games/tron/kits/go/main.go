// A starter tron bot: of the moves that do not crash at once, it takes the one with the
// most free cells next to where it lands (N if every move crashes).
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

type cell struct{ x, y int }

var (
	moves         = []string{"N", "E", "S", "W"}
	steps         = []cell{{0, -1}, {1, 0}, {0, 1}, {-1, 0}}
	width, height int
	walls         = map[cell]bool{} // every wall and trail cell
)

func free(c cell) bool {
	return c.x >= 0 && c.x < width && c.y >= 0 && c.y < height && !walls[c]
}

func choose(me cell) string {
	best, bestRoom := "N", -1
	for i, step := range steps {
		next := cell{me.x + step.x, me.y + step.y}
		if !free(next) {
			continue
		}
		room := 0
		for _, around := range steps {
			if free(cell{next.x + around.x, next.y + around.y}) {
				room++
			}
		}
		if room > bestRoom {
			best, bestRoom = moves[i], room
		}
	}
	return best
}

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
		var me cell
		row := 0
		for _, line := range message {
			key, rest, _ := strings.Cut(line, " ")
			switch key {
			case "M": // M <width> <height>, first message only
				fmt.Sscan(rest, &width, &height)
			case "R": // R <row>: '#' wall, '.' free, '1' and '2' the cycles
				for x, c := range rest {
					if c != '.' {
						walls[cell{x, row}] = true
					}
				}
				row++
			case "P": // P <my x> <my y> <other x> <other y>
				var other cell
				fmt.Sscan(rest, &me.x, &me.y, &other.x, &other.y)
				walls[me], walls[other] = true, true // both cells become trail
			}
			// Y (my seat), T (turn) and L (last moves) are not needed here.
		}
		answer(out, choose(me))
	}
}
