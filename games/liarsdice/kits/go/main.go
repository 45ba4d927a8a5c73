// A starter liar's dice bot. It opens with one of its highest face; otherwise it raises
// the last bid's quantity by one while its own dice plus a sixth of the hidden dice make
// that likely, and calls liar (0) when not. A play is quantity * 10 + face: 23 is two
// threes.
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

// choose plays for hands "A:xxxxx,B:55431" (my own dice as digits) and history
// ["A:23", "B:33"].
func choose(me, hands string, history []string) int {
	seats := strings.Split(hands, ",")
	count := [10]int{}
	highest, hidden := 1, 0
	for _, seat := range seats {
		label, dice, _ := strings.Cut(seat, ":")
		if label != me {
			hidden += len(dice)
			continue
		}
		for _, d := range dice {
			if d >= '1' && d <= '6' {
				count[d-'0']++
				if int(d-'0') > highest {
					highest = int(d - '0')
				}
			}
		}
	}
	if len(history) == 0 {
		return 10 + highest // "one of my highest face": always true
	}
	_, play, _ := strings.Cut(history[len(history)-1], ":")
	last, _ := strconv.Atoi(play)
	quantity, face := last/10, last%10
	likely := float64(count[face]) + float64(hidden)/6 + 0.5
	if quantity+1 <= 5*len(seats) && float64(quantity+1) <= likely {
		return (quantity+1)*10 + face
	}
	return 0 // liar
}

func main() {
	me := ""
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<16), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for {
		message, ok := readMessage(in)
		if !ok || isEnd(message) {
			return
		}
		hands := ""
		var history []string
		for _, line := range message {
			key, rest, _ := strings.Cut(line, " ")
			switch key {
			case "Y": // Y <my label>
				me = rest
			case "H": // H <hands>: my turn
				hands = rest
			case "P": // P <history>, "P" alone before any bid
				if rest != "" {
					history = strings.Split(rest, ",")
				}
			}
			// S (a showdown) and D (a seat disqualified) are news this bot does not use.
		}
		if hands != "" {
			answer(out, strconv.Itoa(choose(me, hands, history)))
		}
	}
}
