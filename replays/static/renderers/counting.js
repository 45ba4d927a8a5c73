/* counting: "<p1 score> <p2 score> <p1 value> <p2 value>" (docs/games/counting.md). */
(function () {
  "use strict";
  JudgeReplay.register("counting", {
    init() { return {scores: [0, 0], values: null, points: [0, 0]}; },
    step(prev, line) {
      const parts = line.split(" ").map(Number);
      if (parts.length !== 4 || parts.some((n) => !Number.isInteger(n))) throw new Error("not a counting turn line");
      const [a, b] = [parts[2], parts[3]];
      const points = [parts[0] - prev.scores[0], parts[1] - prev.scores[1]];
      return {scores: [parts[0], parts[1]], values: [a, b], points};
    },
    view(snap, ctx) {
      const {h} = ctx;
      let note = "before the first round";
      if (snap.values) {
        const [a, b] = snap.values;
        if (a === 100 && b === 100) note = "both count to 100: 100 points each";
        else if (a === b) note = "both stop at " + a + ": nobody scores";
        else note = [ctx.seatName(a < b ? 0 : 1), " stops first at " + Math.min(a, b) + " and scores " + 2 * Math.min(a, b)];
      }
      return h("div", {}, h("div", {class: "jr-seats"}, [0, 1].map((seat) => h("div", {class: "jr-seat" + (snap.points[seat] > 0 ? " win" : ""), "data-seat": seat},
        ctx.seatName(seat),
        h("div", {class: "jr-big", "data-score": seat}, String(snap.scores[seat])),
        h("div", {class: "jr-move"}, snap.values ? "counts to " + snap.values[seat] : "—"),
        h("div", {class: "jr-note"}, snap.values ? "+" + snap.points[seat] : "")))),
        h("div", {class: "jr-note"}, note));
    },
  });
})();
