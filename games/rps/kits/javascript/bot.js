// A starter rps bot: plays what beats the enemy's last move (rock on the first turn).
"use strict";
const readline = require("readline");

const BEATS = { R: "P", P: "S", S: "R" };

function answer(...orders) {
  process.stdout.write(orders.map((order) => `${order}\n`).join("") + ".\n");
}

function play(message) {
  let enemyLast = null;
  for (const line of message) {
    const [key, ...fields] = line.split(" ");
    if (key === "L") enemyLast = fields[1]; // L <my last move> <enemy's last move>
    // Y (my id), E (enemy id) and keys added later are not needed here.
  }
  answer(BEATS[enemyLast] || "R");
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
