// An rps bot in JavaScript (node): plays the move the enemy has played least often.
const readline = require("readline");

const counts = { R: 0, P: 0, S: 0 };
const beats = { R: "P", P: "S", S: "R" };
let message = [];

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (line !== ".") {
    message.push(line);
    return;
  }
  if (message.some((l) => l.startsWith("END"))) {
    input.close();
    return;
  }
  for (const l of message) {
    if (l.startsWith("L ")) counts[l.split(" ")[2]] += 1;
  }
  message = [];
  // Expect the enemy's favourite; answer what beats it.
  const favourite = Object.keys(counts).reduce((a, b) => (counts[b] > counts[a] ? b : a));
  process.stdout.write(`${beats[favourite]}\n.\n`);
});
