/* rps: "<p1 score> <p2 score> <p1 order> <p2 order>" (games/rps/README.md). */
(function () {
  "use strict";
  const SHAPES = {R: "rock", P: "paper", S: "scissors"};
  const BEATS = {R: "S", P: "R", S: "P"};
  JudgeReplay.register("rps", {
    init() { return {scores: [0, 0], orders: null, winner: null, counts: [{R: 0, P: 0, S: 0}, {R: 0, P: 0, S: 0}]}; },
    step(prev, line) {
      const parts = line.split(" ");
      if (parts.length !== 4 || !(parts[2] in BEATS) || !(parts[3] in BEATS)) throw new Error("not an rps turn line");
      const [a, b] = [parts[2], parts[3]];
      const counts = prev.counts.map((c) => ({...c}));
      counts[0][a] += 1;
      counts[1][b] += 1;
      const winner = a === b ? null : BEATS[a] === b ? 0 : 1;
      return {scores: [Number(parts[0]), Number(parts[1])], orders: [a, b], winner, counts};
    },
    chart(snap) { return snap.scores; },
    chartLabel: "score",
    view(snap, ctx) {
      const {h} = ctx;
      return h("div", {class: "jr-seats"}, [0, 1].map((seat) => h("div", {class: "jr-seat" + (snap.winner === seat ? " win" : ""), "data-seat": seat},
        ctx.seatName(seat),
        h("div", {class: "jr-big", "data-score": seat}, String(snap.scores[seat])),
        h("div", {class: "jr-move"}, snap.orders ? SHAPES[snap.orders[seat]] : "—"),
        h("div", {class: "jr-note"}, "R " + snap.counts[seat].R + " · P " + snap.counts[seat].P + " · S " + snap.counts[seat].S))),
        h("div", {class: "jr-note"}, snap.orders ? (snap.winner === null ? "tie" : [ctx.seatName(snap.winner), " takes the round"]) : "before the first turn"));
    },
  });
})();
