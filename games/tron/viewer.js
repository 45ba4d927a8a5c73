/* tron: "<move 1> <move 2> <x1> <y1> <x2> <y2> <state>" (games/tron/README.md); the map is
 * the header's options.grid ("<width> <height>", then rows: '#' wall, ' ' or '.' floor,
 * '1' and '2' the starts); state "-" while both ride on, "1"/"2" the winner, or "draw". */
(function () {
  "use strict";
  const MOVES = {N: "north", E: "east", S: "south", W: "west"};
  const CELL = {"#": "█", ".": "·", "0": "▒", "1": "▒", "@0": "●", "@1": "●"};

  function parseMap(text) {
    const lines = String(text || "").replace(/\r\n/g, "\n").split("\n");
    const size = (lines[0] || "").trim().split(/\s+/).map(Number);
    if (size.length !== 2 || !size.every((n) => Number.isInteger(n) && n > 0)) throw new Error("no tron map in the header");
    const [width, height] = size;
    const cells = [];
    const heads = [null, null];
    for (let y = 0; y < height; y++) {
      const row = (lines[y + 1] || "").padEnd(width, " ");
      for (let x = 0; x < width; x++) {
        const c = row[x];
        if (c === "1" || c === "2") {
          heads[Number(c) - 1] = [x, y];
          cells.push(String(Number(c) - 1));
        } else cells.push(c === "#" ? "#" : ".");
      }
    }
    return {width, height, cells, heads};
  }

  function territory(snap) {
    const {width, height, cells} = snap;
    const dist = [0, 1].map(() => new Int32Array(width * height).fill(-1));
    [0, 1].forEach((seat) => {
      const head = snap.heads[seat];
      if (!head || head[0] < 0 || head[1] < 0 || head[0] >= width || head[1] >= height) return;
      const queue = [head[1] * width + head[0]];
      dist[seat][queue[0]] = 0;
      for (let i = 0; i < queue.length; i++) {
        const at = queue[i], x = at % width, y = Math.floor(at / width);
        for (const [nx, ny] of [[x + 1, y], [x - 1, y], [x, y + 1], [x, y - 1]]) {
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const next = ny * width + nx;
          if (cells[next] !== "." || dist[seat][next] >= 0) continue;
          dist[seat][next] = dist[seat][at] + 1;
          queue.push(next);
        }
      }
    });
    const near = [0, 0];
    for (let i = 0; i < width * height; i++) {
      if (cells[i] !== ".") continue;
      const [a, b] = [dist[0][i], dist[1][i]];
      if (a >= 0 && (b < 0 || a < b)) near[0] += 1;
      else if (b >= 0 && (a < 0 || b < a)) near[1] += 1;
    }
    return near;
  }

  JudgeReplay.register("tron", {
    init(ctx) {
      const map = parseMap((ctx.header.options || {}).grid);
      return {width: map.width, height: map.height, cells: map.cells, heads: map.heads, moves: null, state: "-", turn: 0};
    },
    step(prev, line) {
      const p = line.split(" ");
      if (p.length !== 7 || !(p[0] in MOVES) || !(p[1] in MOVES) || !["-", "1", "2", "draw"].includes(p[6])) throw new Error("not a tron turn line");
      const heads = [[Number(p[2]), Number(p[3])], [Number(p[4]), Number(p[5])]];
      const cells = prev.cells.slice();
      heads.forEach(([x, y], seat) => {
        if (x >= 0 && y >= 0 && x < prev.width && y < prev.height && cells[y * prev.width + x] === ".") cells[y * prev.width + x] = String(seat);
      });
      return {width: prev.width, height: prev.height, cells, heads, moves: [p[0], p[1]], state: p[6], turn: prev.turn + 1};
    },
    // Both trails grow a cell a turn: their lengths say nothing. The room each rider has does:
    // the free cells it reaches before the other (a rider's territory).
    chart(snap) {
      return territory(snap);
    },
    chartLabel: "cells nearer each rider",
    view(snap, ctx) {
      const {h} = ctx;
      const rows = [];
      for (let y = 0; y < snap.height; y++) {
        const spans = [];
        for (let x = 0; x < snap.width; x++) {
          const head = snap.heads.findIndex((hd) => hd && hd[0] === x && hd[1] === y);
          const c = snap.cells[y * snap.width + x];
          if (head >= 0) spans.push(h("span", {class: "jr-c" + head, "data-head": head}, CELL["@" + head]));
          else if (c === "0" || c === "1") spans.push(h("span", {class: "jr-c" + c}, CELL[c]));
          else spans.push(CELL[c]);
        }
        rows.push(h("div", {}, spans));
      }
      const crashed = snap.state === "draw" ? [0, 1] : snap.state === "1" ? [1] : snap.state === "2" ? [0] : [];
      const cards = h("div", {class: "jr-seats"}, [0, 1].map((seat) => h("div", {class: "jr-seat" + (crashed.includes(seat) || ctx.disqualified.has(seat) ? " out" : snap.state === String(seat + 1) ? " win" : ""), "data-seat": seat},
        ctx.seatName(seat),
        h("div", {class: "jr-move"}, snap.moves ? "rides " + MOVES[snap.moves[seat]] : "at the start"),
        h("div", {class: "jr-note"}, crashed.includes(seat) ? "crashed" : ctx.disqualified.has(seat) ? "disqualified" : "riding"))));
      const note = snap.state === "draw" ? "both crash in the same turn: a draw" : snap.state === "-" ? (snap.turn ? "turn " + snap.turn : "before the first move") : [ctx.seatName(Number(snap.state) - 1), " survives and wins"];
      return h("div", {},
        cards,
        // As large as the panel allows (a character is about .8em wide here), centred.
        h("pre", {class: "jr-tron", "data-width": snap.width, "data-height": snap.height, style: `font: min(40px, ${(80 / (0.8 * snap.width)).toFixed(2)}vw)/1 ui-monospace, monospace; letter-spacing: .1em; margin: .8rem auto; width: fit-content;`}, rows),
        h("div", {class: "jr-note"}, note));
    },
  });
})();
