// A starter tron bot: of the moves that do not crash at once, it takes the one with the
// most free cells next to where it lands (N if every move crashes).
"use strict";
const readline = require("readline");

const MOVES = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };
let width = 0;
let height = 0;
const walls = new Set(); // "x,y" of every wall and trail cell

function answer(...orders) {
  process.stdout.write(orders.map((order) => `${order}\n`).join("") + ".\n");
}

const free = (x, y) => x >= 0 && x < width && y >= 0 && y < height && !walls.has(`${x},${y}`);

function choose(x, y) {
  let best = "N";
  let bestRoom = -1;
  for (const [move, [dx, dy]] of Object.entries(MOVES)) {
    const nx = x + dx;
    const ny = y + dy;
    if (!free(nx, ny)) continue;
    const room = Object.values(MOVES).filter(([ex, ey]) => free(nx + ex, ny + ey)).length;
    if (room > bestRoom) [best, bestRoom] = [move, room];
  }
  return best;
}

function play(message) {
  let me = [0, 0];
  let row = 0;
  for (const line of message) {
    const key = line.split(" ")[0];
    const rest = line.slice(key.length + 1);
    if (key === "M") {
      [width, height] = rest.split(" ").map(Number); // M <width> <height>, first message
    } else if (key === "R") {
      // R <row>: '#' wall, '.' free, '1' and '2' the cycles
      [...rest].forEach((cell, x) => cell !== "." && walls.add(`${x},${row}`));
      row++;
    } else if (key === "P") {
      const [x, y, ox, oy] = rest.split(" ").map(Number); // P <my x> <my y> <other x> <other y>
      me = [x, y];
      walls.add(`${x},${y}`).add(`${ox},${oy}`); // both cells become trail
    }
    // Y (my seat), T (turn) and L (last moves) are not needed here.
  }
  answer(choose(...me));
}

// Each message is the lines up to a "." line; the one with END is the last.
let message = [];
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (line !== ".") return void message.push(line);
  const lines = message;
  message = [];
  if (lines.some((l) => l.startsWith("END"))) process.exit(0);
  play(lines);
});
