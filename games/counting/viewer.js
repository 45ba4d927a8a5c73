/* counting (games/counting/README.md): "<total 1> ... <total N> <order 1> ... <order N>".
 * Two seats, one run: each order is one value. The arena (3+ seats or runs > 1): each order
 * is the seat's choices joined by commas, run by run, live opponents ascending; "-" for a
 * seat that no longer plays. */
(function () {
  "use strict";
  const GRID_SEATS = 12;  // above this a cross-table of choices is too wide to read

  function parse(line, seats) {
    const parts = line.split(" ");
    if (parts.length !== 2 * seats) throw new Error("not a counting turn line for " + seats + " seats");
    const totals = parts.slice(0, seats).map(Number);
    if (totals.some((n) => !Number.isInteger(n))) throw new Error("not a counting turn line: totals must be whole numbers");
    const orders = parts.slice(seats).map((order) => order === "-" ? null : order.split(",").map(Number));
    if (orders.some((o) => o !== null && o.some((n) => !Number.isInteger(n)))) throw new Error("not a counting turn line: choices must be whole numbers");
    return {totals, orders};
  }

  /* Seat `seat`'s choice against `other` in run `run` (0-based), from the answer order. */
  function choiceAgainst(orders, seat, other, run) {
    const live = orders.map((o, s) => o === null ? -1 : s).filter((s) => s >= 0);
    if (orders[seat] === null || orders[other] === null) return null;
    const opponents = live.filter((s) => s !== seat);
    const index = run * opponents.length + opponents.indexOf(other);
    const value = orders[seat][index];
    return value === undefined ? null : value;
  }

  JudgeReplay.register("counting", {
    init(ctx) {
      const seats = ctx.header.players.length;
      return {scores: new Array(seats).fill(0), orders: null, points: new Array(seats).fill(0)};
    },
    step(prev, line, turn, ctx) {
      const {totals, orders} = parse(line, ctx.header.players.length);
      return {scores: totals, orders, points: totals.map((t, s) => t - prev.scores[s])};
    },
    chart(snap) { return snap.scores; },
    chartLabel: "total points",
    view(snap, ctx) {
      const {h} = ctx;
      const seats = ctx.header.players.length;
      const runs = Number((ctx.header.options || {}).runs || 1);
      const arena = seats > 2 || runs > 1;
      if (!arena) return duel(snap, ctx);
      const best = Math.max(...snap.points);
      const cards = h("div", {class: "jr-seats"}, ctx.header.players.map((p, seat) => {
        const order = snap.orders ? snap.orders[seat] : null;
        const out = ctx.disqualified.has(seat) || (snap.orders && order === null);
        return h("div", {class: "jr-seat" + (out ? " out" : best > 0 && snap.points[seat] === best ? " win" : ""), "data-seat": seat},
          ctx.seatName(seat),
          h("div", {class: "jr-big", "data-score": seat}, String(snap.scores[seat])),
          h("div", {class: "jr-note"}, out ? "out" : snap.orders ? "+" + snap.points[seat] + " this round" : "—"),
          order ? h("div", {class: "jr-note"}, summary(order)) : "");
      }));
      const note = h("div", {class: "jr-note"}, snap.orders
        ? seats * (seats - 1) / 2 * runs + " games (" + seats + " seats × " + runs + (runs === 1 ? " run" : " runs") + "), all one round per turn"
        : "before the first round");
      return h("div", {}, cards, note, snap.orders && seats <= GRID_SEATS ? grid(snap, ctx, seats) : "");
    },
  });

  function summary(order) {
    if (order.length <= 6) return "counts to " + order.join(", ");
    const mean = order.reduce((a, b) => a + b, 0) / order.length;
    return order.length + " choices, " + Math.min(...order) + "–" + Math.max(...order) + ", mean " + mean.toFixed(1);
  }

  /* Run 1's choices: row seat against column seat; the lower choice of a pair scores. */
  function grid(snap, ctx, seats) {
    const {h} = ctx;
    const cell = (seat, other) => {
      if (seat === other) return h("td", {class: "jr-self"}, "");
      const mine = choiceAgainst(snap.orders, seat, other, 0);
      const theirs = choiceAgainst(snap.orders, other, seat, 0);
      if (mine === null || theirs === null) return h("td", {}, "—");
      const scored = (mine < theirs) || (mine === 100 && theirs === 100);
      return h("td", {class: scored ? "jr-scored" : "", "data-cell": seat + "-" + other}, String(mine));
    };
    return h("table", {class: "jr-table jr-grid", "aria-label": "choices in run 1"},
      h("caption", {}, "run 1: what each row counted to against each column (scorers highlighted)"),
      h("thead", {}, h("tr", {}, h("th", {}, ""), ctx.header.players.map((p, s) => h("th", {}, ctx.seatName(s))))),
      h("tbody", {}, ctx.header.players.map((p, seat) => h("tr", {}, h("th", {}, ctx.seatName(seat)),
        ctx.header.players.map((q, other) => cell(seat, other))))));
  }

  function duel(snap, ctx) {
    const {h} = ctx;
    const values = snap.orders ? snap.orders.map((o) => o === null ? null : o[0]) : null;
    let note = "before the first round";
    if (values && values[0] !== null && values[1] !== null) {
      const [a, b] = values;
      if (a === 100 && b === 100) note = "both count to 100: 100 points each";
      else if (a === b) note = "both stop at " + a + ": nobody scores";
      else note = [ctx.seatName(a < b ? 0 : 1), " stops first at " + Math.min(a, b) + " and scores " + 2 * Math.min(a, b)];
    }
    return h("div", {}, h("div", {class: "jr-seats"}, [0, 1].map((seat) => h("div", {class: "jr-seat" + (snap.points[seat] > 0 ? " win" : ""), "data-seat": seat},
      ctx.seatName(seat),
      h("div", {class: "jr-big", "data-score": seat}, String(snap.scores[seat])),
      h("div", {class: "jr-move"}, values && values[seat] !== null ? "counts to " + values[seat] : "—"),
      h("div", {class: "jr-note"}, values ? "+" + snap.points[seat] : "")))),
      h("div", {class: "jr-note"}, note));
  }
})();
