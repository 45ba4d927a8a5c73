// The match viewer: a turn slider over replay lines that may still be arriving.
// Rendering of a turn is delegated to the replay package's renderer when it is loaded
// (window.JudgeReplay, the same code as `judge replay --export html`); otherwise each turn
// line is shown as it is.
"use strict";

const ReplayView = {
  create(container) {
    const header = { value: null };
    const turns = [];
    const events = [];
    let shown = -1;
    let follow = true;
    let playing = null;

    const slider = h("input", { type: "range", min: "0", max: "0", value: "0", class: "slider", id: "turn-slider" });
    const counter = h("span", { id: "turn-counter" }, "waiting for the match to start");
    const followBox = h("input", { type: "checkbox", id: "follow", checked: true });
    const prev = h("button", { class: "secondary", id: "prev", type: "button" }, "◀");
    const next = h("button", { class: "secondary", id: "next", type: "button" }, "▶");
    const play = h("button", { class: "secondary", id: "play", type: "button" }, "play");
    const board = h("div", { class: "card", id: "board" });
    const log = h("pre", { id: "events", hidden: true });
    container.append(h("h2", {}, "Replay"),
      h("div", { class: "toolbar" }, prev, slider, next, play, counter,
        h("label", {}, followBox, " follow live")), board, log);

    function renderer() {
      const game = header.value && header.value.game;
      const lib = window.JudgeReplay;
      return lib && game && lib.renderers && lib.renderers[game] ? lib.renderers[game] : null;
    }

    function draw(index) {
      if (turns.length === 0) return;
      shown = Math.max(0, Math.min(index, turns.length - 1));
      slider.max = String(turns.length - 1);
      slider.value = String(shown);
      counter.textContent = `turn ${shown + 1} of ${turns.length}`;
      const render = renderer();
      board.replaceChildren();
      if (render) {
        render(board, { header: header.value, turns, index: shown });
        return;
      }
      const players = header.value ? header.value.players.map((p) => p.name) : [];
      board.append(h("div", { class: "muted" }, players.join(" vs ")),
        h("div", { id: "turn-line" }, h("code", {}, turns[shown])));
      const recent = turns.slice(Math.max(0, shown - 9), shown + 1);
      board.append(h("pre", {}, recent.join("\n")));
    }

    slider.addEventListener("input", () => { follow = false; followBox.checked = false; draw(Number(slider.value)); });
    prev.addEventListener("click", () => { follow = false; followBox.checked = false; draw(shown - 1); });
    next.addEventListener("click", () => { draw(shown + 1); });
    followBox.addEventListener("change", () => { follow = followBox.checked; if (follow) draw(turns.length - 1); });
    play.addEventListener("click", () => {
      if (playing) { clearInterval(playing); playing = null; play.textContent = "play"; return; }
      follow = false; followBox.checked = false;
      if (shown >= turns.length - 1) draw(0);
      play.textContent = "pause";
      playing = setInterval(() => {
        if (shown >= turns.length - 1) { clearInterval(playing); playing = null; play.textContent = "play"; return; }
        draw(shown + 1);
      }, 120);
    });

    return {
      add(line) {
        if (line.startsWith("#judge-replay ")) {
          header.value = JSON.parse(line.slice("#judge-replay ".length));
          return;
        }
        if (line.startsWith("#")) {
          const space = line.indexOf(" ");
          const kind = line.slice(1, space > 0 ? space : undefined);
          if (kind !== "result") {
            events.push(line);
            log.hidden = false;
            log.textContent = events.join("\n");
          }
          return;
        }
        turns.push(line);
        if (follow) draw(turns.length - 1);
        else { slider.max = String(turns.length - 1); counter.textContent = `turn ${shown + 1} of ${turns.length}`; }
      },
      finish() {
        if (turns.length && shown < 0) draw(turns.length - 1);
        if (!turns.length) counter.textContent = "no turns were played";
      },
      turns,
    };
  },
};
