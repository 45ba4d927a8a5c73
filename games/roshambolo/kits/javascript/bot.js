// A starter roshambolo bot: counts the shapes in every round it observes and plays the
// shape that beats the most common one. Shapes: 1 rock, 2 paper, 3 scissors.
"use strict";
const readline = require("readline");

const BEATS = { 1: 2, 2: 3, 3: 1 };
const seen = { 1: 0, 2: 0, 3: 0 };

function answer(...orders) {
  process.stdout.write(orders.map((order) => `${order}\n`).join("") + ".\n");
}

function play(message) {
  let playNow = false;
  for (const line of message) {
    const [key, ...fields] = line.split(" ");
    if (key === "O") {
      // O <game> <a id> <b id> <a play> <b play> <result>
      for (const shape of fields.slice(3, 5)) if (shape in seen) seen[shape]++;
    } else if (key === "P") {
      playNow = true; // P <game> <my id> <opponent id>: play now
    }
  }
  if (playNow) {
    const most = [1, 2, 3].reduce((a, b) => (seen[b] > seen[a] ? b : a));
    answer(BEATS[most]);
  }
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
