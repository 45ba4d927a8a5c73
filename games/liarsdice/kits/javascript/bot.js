// A starter liar's dice bot. It opens with one of its highest face; otherwise it raises
// the last bid's quantity by one while its own dice plus a sixth of the hidden dice make
// that likely, and calls liar (0) when not. A play is quantity * 10 + face: 23 is two
// threes.
"use strict";
const readline = require("readline");

let me = "";

function answer(...orders) {
  process.stdout.write(orders.map((order) => `${order}\n`).join("") + ".\n");
}

// hands: "A:xxxxx,B:55431" (my own dice as digits); history: ["A:23", "B:33"].
function choose(hands, history) {
  const seats = hands.split(",");
  const own = seats.find((seat) => seat.startsWith(me + ":")) || ":";
  const mine = [...own.split(":")[1]].map(Number);
  const hidden = seats
    .filter((seat) => seat !== own)
    .reduce((sum, seat) => sum + seat.split(":")[1].length, 0);
  if (history.length === 0) return 10 + Math.max(...mine); // one of my highest face
  const last = Number(history[history.length - 1].split(":")[1]);
  const quantity = Math.floor(last / 10);
  const face = last % 10;
  const likely = mine.filter((d) => d === face).length + hidden / 6 + 0.5;
  if (quantity + 1 <= 5 * seats.length && quantity + 1 <= likely) return (quantity + 1) * 10 + face;
  return 0; // liar
}

function play(message) {
  let hands = null;
  let history = [];
  for (const line of message) {
    const key = line.split(" ")[0];
    const rest = line.slice(key.length + 1);
    if (key === "Y") me = rest; // Y <my label>
    else if (key === "H") hands = rest; // H <hands>: my turn
    else if (key === "P") history = rest ? rest.split(",") : []; // P <history>
    // S (a showdown) and D (a seat disqualified) are news this bot does not use.
  }
  if (hands !== null) answer(choose(hands, history));
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
