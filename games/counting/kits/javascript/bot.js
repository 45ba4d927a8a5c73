// A starter counting bot: tit for tat. It counts to 100 first, then to the value the last
// round reached. With three or more seats (an arena) it gets one O line per game and
// answers one choice per game, in their order.
"use strict";
const readline = require("readline");

function answer(...orders) {
  process.stdout.write(orders.map((order) => `${order}\n`).join("") + ".\n");
}

// last: [value reached, won] of this game's last round, or [] in the first.
const choice = (last) => (last.length ? Number(last[0]) : 100);

function play(message) {
  let single = []; // two seats: the L line of the last round
  const games = []; // an arena: one O line per game
  for (const line of message) {
    const [key, ...fields] = line.split(" ");
    if (key === "L") single = fields; // L <value reached> <won: 1 or 0>
    else if (key === "O") games.push(fields.slice(2)); // O <opponent> <run> [<value> <won>]
    // R <round> is not needed here.
  }
  answer(games.length ? games.map(choice).join(",") : choice(single));
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
