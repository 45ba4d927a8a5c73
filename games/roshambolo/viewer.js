/* roshambolo: "<game> <a> <b> <answer a> <answer b> <shape a> <shape b> <winner 0|1> <wins a> <wins b> <how>"
 * (games/roshambolo/README.md); seats are 1-based labels, shapes 1 rock 2 paper 3 scissors. */
(function () {
  "use strict";
  const SHAPES = {"1": "rock", "2": "paper", "3": "scissors", "*": "—"};
  const HOW = {beats: "shape beats shape", more: "played that shape more often", counter: "played its counter more often", coin: "coin toss", forfeit: "forfeit"};
  // "paper beats rock": the shapes of the round, not the rule's name.
  function how(r) {
    if (r.how !== "beats") return HOW[r.how] || r.how;
    return (SHAPES[r.shapes[r.winner]] || r.shapes[r.winner]) + " beats " + (SHAPES[r.shapes[1 - r.winner]] || r.shapes[1 - r.winner]);
  }
  JudgeReplay.register("roshambolo", {
    init(ctx) { return {games: ctx.header.players.map(() => 0), rounds: ctx.header.players.map(() => 0), round: null}; },
    step(prev, line, turn, ctx) {
      const p = line.split(" ");
      if (p.length !== 11 || !(p[10] in HOW)) throw new Error("not a roshambolo turn line");
      const seats = [Number(p[1]) - 1, Number(p[2]) - 1];
      const winner = Number(p[7]);
      const wins = [Number(p[8]), Number(p[9])];
      const raceTo = Number((ctx.header.options || {}).race_to || 0);
      const games = prev.games.slice();
      const over = p[10] === "forfeit" || (raceTo > 0 && wins[winner] >= raceTo);
      if (over) games[seats[winner]] += 1;
      const rounds = prev.rounds.slice();
      if (p[10] !== "forfeit") rounds[seats[winner]] += 1;
      return {games, rounds, round: {game: p[0], seats, answers: [p[3], p[4]], shapes: [p[5], p[6]], winner, wins, how: p[10], over}};
    },
    chart(snap) { return snap.rounds; },
    chartLabel: "rounds won",
    view(snap, ctx) {
      const {h} = ctx;
      const r = snap.round;
      const standings = h("div", {class: "jr-note"}, "games won: ", ctx.header.players.map((pl, seat) => [seat ? ", " : "", ctx.seatName(seat), " " + snap.games[seat]]));
      if (!r) return h("div", {}, "before the first round", standings);
      return h("div", {},
        h("div", {class: "jr-note"}, "game " + r.game + (r.over ? " (decided)" : "")),
        h("div", {class: "jr-seats"}, [0, 1].map((i) => h("div", {class: "jr-seat" + (r.winner === i ? " win" : ""), "data-seat": r.seats[i]},
          ctx.seatName(r.seats[i]),
          h("div", {class: "jr-big", "data-score": r.seats[i]}, String(r.wins[i])),
          h("div", {class: "jr-move"}, SHAPES[r.shapes[i]] || r.shapes[i])))),
        h("div", {class: "jr-note", "data-how": r.how}, ctx.seatName(r.seats[r.winner]), " wins the round: " + how(r)),
        standings);
    },
  });
})();
