/* liarsdice: "H<hand> <seat> <play>[ illegal:<raw>| not-increasing:<raw>][ | <revealed> <history> LOSER:<seat> <code>]"
 * (games/liarsdice/README.md); a play is quantity*10+face, 0 calls liar. */
(function () {
  "use strict";
  const CODES = {"1": "liar on the opening bid: the caller loses a die", "2": "the bid was met: the caller loses a die", "3": "the bid was not met: the bidder loses a die"};
  const LINE = /^H([0-9]+) ([A-Z]) (-?[0-9]+)(?: (illegal|not-increasing):([+-]?[0-9]+))?(?: \| (\S+) (\S*) LOSER:([A-Z]) ([0-9]+))?$/;
  JudgeReplay.register("liarsdice", {
    init(ctx) { return {cups: ctx.header.players.map(() => 5), hand: 0, bids: [], showdown: null}; },
    step(prev, line, turn, ctx) {
      const m = LINE.exec(line);
      if (!m) throw new Error("not a liarsdice turn line");
      const hand = Number(m[1]);
      const seat = ctx.seatOfLabel(m[2]);
      const bids = hand === prev.hand && !prev.showdown ? prev.bids.slice() : [];
      bids.push({seat, play: Number(m[3]), flaw: m[4] || null, raw: m[5] || null});
      const cups = prev.cups.slice();
      let showdown = null;
      if (m[6] !== undefined) {
        const loser = ctx.seatOfLabel(m[8]);
        cups[loser] = Math.max(0, cups[loser] - 1);
        showdown = {revealed: m[6].split(",").map((part) => part.split(":")), loser, code: m[9]};
      }
      return {cups, hand, bids, showdown};
    },
    chart(snap) { return snap.cups; },
    chartLabel: "dice left",
    view(snap, ctx) {
      const {h} = ctx;
      const describe = (bid) => bid.play === 0 ? "liar!" : Math.floor(bid.play / 10) + " × " + (bid.play % 10);
      const dice = Object.fromEntries(snap.showdown ? snap.showdown.revealed : []);
      return h("div", {},
        h("div", {class: "jr-note"}, snap.hand ? "hand " + snap.hand : "before the first hand"),
        h("div", {class: "jr-seats"}, ctx.header.players.map((p, seat) => h("div", {class: "jr-seat" + (snap.cups[seat] === 0 || ctx.disqualified.has(seat) ? " out" : ""), "data-seat": seat},
          ctx.seatName(seat),
          h("div", {class: "jr-big", "data-score": seat}, String(ctx.disqualified.has(seat) ? 0 : snap.cups[seat])),
          h("div", {class: "jr-note"}, ctx.disqualified.has(seat) ? "disqualified" : "dice left"),
          dice[p.label] !== undefined ? h("div", {class: "jr-note"}, "showdown: ", h("span", {class: "jr-dice"}, dice[p.label])) : ""))),
        h("ol", {class: "jr-bids"}, snap.bids.map((bid) => h("li", {}, ctx.seatName(bid.seat), " " + describe(bid),
          bid.flaw ? " (sent " + bid.raw + ": " + bid.flaw + ", counted as liar)" : ""))),
        snap.showdown ? h("div", {class: "jr-note"}, ctx.seatName(snap.showdown.loser), " loses a die: " + (CODES[snap.showdown.code] || snap.showdown.code)) : "");
    },
  });
})();
