/* The replay viewer: one page for a finished replay (exported or downloaded) and for a
 * match still running (lines fed as they arrive, e.g. from an SSE stream).
 *
 *   const viewer = JudgeReplay.createViewer(element, {follow: true});
 *   viewer.feedLine(line);     // one replay line (header, turn, #dq or #result)
 *   viewer.feedText(chunk);    // any chunk of replay text; partial lines are kept
 *   viewer.end();              // no more lines will come
 *   JudgeReplay.connect(viewer, "/api/matches/ID/live");  // SSE 'line' and 'end' events
 *
 * Games register renderers: JudgeReplay.register(game, {init, step, view}); init(ctx) gives
 * the snapshot before the first turn, step(prev, line, turn, ctx) the snapshot after a
 * turn (never mutate prev), view(snapshot, ctx) returns a DOM node, and the optional
 * chart(snapshot, ctx) gives one number per seat for the chart under the board (score over
 * turns; a renderer may set chartLabel). Unknown games use the generic renderer.
 * Data from a replay only ever reaches the page as text, never as HTML.
 */
(function (global) {
  "use strict";

  const FORMAT_VERSION = 2;  // (replays/format.py; version 1 reads the same here)
  const renderers = Object.create(null);

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") el.className = value;
      else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
      else el.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      el.append(child instanceof Node ? child : String(child));
    }
    return el;
  }

  function seatName(ctx, seat) {
    const player = ctx.header.players[seat];
    return h("span", {class: "jr-name jr-c" + (seat % 6)}, player ? player.name : "seat " + (seat + 1));
  }

  function seatOfLabel(ctx, label) {
    return ctx.header.players.findIndex((p) => p.label === label);
  }

  const generic = {
    init() { return null; },
    step(prev, line) { return {line}; },
    view(snap, ctx, turn) {
      return snap ? h("div", {class: "jr-move"}, "turn " + turn + ": ", h("code", {}, snap.line)) : h("div", {}, "Before the first turn.");
    },
  };

  function register(game, renderer) { renderers[game] = renderer; }

  class Viewer {
    constructor(root, options) {
      this.options = options || {};
      this.root = root;
      this.header = null;
      this.ctx = null;
      this.renderer = generic;
      this.snapshots = [null];
      this.series = [];  // per turn (from 0), one chart value per seat
      this.lines = [];
      this.events = [];
      this.result = null;
      this.ended = false;
      this.error = null;
      this.lineCount = 0;
      this.partial = "";
      this.position = 0;
      this.follow = Boolean(this.options.follow);
      // "live" only for a match being played (not for a finished one loading).
      this.live = this.options.live === undefined ? this.follow : Boolean(this.options.live);
      this.playing = false;
      this.timer = null;
      this.speed = this.options.speed || 10;
      this.pending = false;
      this.build();
    }

    // -- feeding -----------------------------------------------------------------
    feedText(text) {
      const parts = (this.partial + text).split("\n");
      this.partial = parts.pop();
      for (const line of parts) this.feedLine(line);
    }

    feedLines(lines) { for (const line of lines) this.feedLine(line); }

    feedLine(raw) {
      if (this.error) return;
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      this.lineCount += 1;
      try {
        this.parse(line);
      } catch (err) {
        this.fail("line " + this.lineCount + ": " + err.message);
      }
      this.schedule();
    }

    parse(line) {
      if (this.header === null) {
        if (!line.startsWith("#judge-replay ")) throw new Error("not a judge replay");
        const header = JSON.parse(line.slice(14));
        if (typeof header.version !== "number") throw new Error("the header has no version");
        if (header.version > FORMAT_VERSION) {
          throw new Error("format version " + header.version + " is newer than this viewer reads (" + FORMAT_VERSION + ")");
        }
        if (!Array.isArray(header.players)) throw new Error("the header has no players");
        this.header = header;
        this.renderer = renderers[header.game] || generic;
        this.ctx = {header, h, disqualified: new Set(), seatName: (seat) => seatName(this.ctx, seat), seatOfLabel: (label) => seatOfLabel(this.ctx, label)};
        this.snapshots = [this.renderer.init(this.ctx)];
        this.series = [this.chartValues(this.snapshots[0])];
        this.renderHeader();
        return;
      }
      if (this.result !== null) throw new Error("a line after the final result");
      if (line.startsWith("#")) {
        const match = /^#([a-z][a-z0-9_-]*) (.*)$/.exec(line);
        if (!match) throw new Error("a judge line must look like '#<kind> {json}'");
        const data = JSON.parse(match[2]);
        if (match[1] === "dq") this.events.push(data);
        else if (match[1] === "result") this.result = data;
        else throw new Error("unknown line kind #" + match[1]);
        return;
      }
      if (line === "") throw new Error("an empty line");
      const turn = this.snapshots.length;
      const wasAtEnd = this.position === turn - 1;
      let snap;
      try {
        snap = this.renderer.step(this.snapshots[turn - 1], line, turn, this.ctx);
      } catch (err) {
        snap = {line, unreadable: String(err.message || err)};
      }
      this.snapshots.push(snap);
      this.series.push(snap.unreadable ? this.series[this.series.length - 1] : this.chartValues(snap));
      this.lines.push(line);
      if (this.follow && wasAtEnd && !this.playing) this.position = turn;
    }

    chartValues(snap) {
      if (!this.renderer.chart || !snap) return null;
      try {
        const values = this.renderer.chart(snap, this.ctx);
        return Array.isArray(values) ? values.map(Number) : null;
      } catch (err) {
        return null;
      }
    }

    end() {
      if (this.partial) {
        this.partial = "";  // an unfinished last line: the writer was cut off
      }
      this.ended = true;
      this.schedule();
    }

    fail(message) {
      this.error = message;
      this.pause();
      this.schedule();
    }

    setLive(live) { this.live = Boolean(live); this.schedule(); }

    get turns() { return this.snapshots.length - 1; }

    // -- navigation ----------------------------------------------------------------
    show(turn) {
      this.position = Math.max(0, Math.min(this.turns, turn | 0));
      this.follow = this.position === this.turns && Boolean(this.options.follow);
      this.schedule();
    }

    next() { this.show(this.position + 1); }
    prev() { this.show(this.position - 1); }

    play() {
      if (this.playing) return;
      if (this.position >= this.turns) this.position = 0;
      this.playing = true;
      const tick = () => {
        if (!this.playing) return;
        if (this.position >= this.turns) {
          if (this.ended || this.result !== null) { this.pause(); return; }
        } else {
          this.position += 1;
          this.schedule();
        }
        this.timer = setTimeout(tick, 1000 / this.speed);
      };
      this.timer = setTimeout(tick, 1000 / this.speed);
      this.schedule();
    }

    pause() {
      this.playing = false;
      if (this.timer !== null) clearTimeout(this.timer);
      this.timer = null;
      this.schedule();
    }

    toggle() { if (this.playing) this.pause(); else this.play(); }

    // -- drawing -------------------------------------------------------------------
    build() {
      this.root.classList.add("jr-root");
      this.titleEl = h("h1", {}, "Replay");
      this.statusEl = h("span", {class: "jr-status"}, "loading");
      this.subEl = h("div", {class: "jr-sub"});
      this.errorEl = h("div", {class: "jr-error", role: "alert", hidden: true});
      this.slider = h("input", {type: "range", min: 0, max: 0, value: 0, "aria-label": "turn",
        oninput: () => { this.pause(); this.show(Number(this.slider.value)); }});
      this.playButton = h("button", {type: "button", "data-action": "play", title: "play/pause (space)", onclick: () => this.toggle()}, "play");
      this.turnEl = h("span", {class: "jr-turn"});
      const speed = h("select", {"aria-label": "speed", onchange: () => {
        this.speed = Number(speed.value);
        if (this.playing) { this.pause(); this.play(); }
      }}, [1, 2, 5, 10, 30, 100, 1000].map((v) => h("option", {value: v, selected: v === this.speed}, v + " turns/s")));
      this.boardEl = h("div", {class: "jr-board"});
      this.chart = new global.JudgeChart.LineChart((turn) => { this.pause(); this.show(turn); });
      this.lineEl = h("pre", {class: "jr-line"});
      this.eventsEl = h("div", {class: "jr-events"});
      this.resultEl = h("div", {class: "jr-result"});
      const button = (action, label, title, fn) => h("button", {type: "button", "data-action": action, title, onclick: fn}, label);
      this.root.replaceChildren(
        h("div", {}, this.titleEl), this.subEl, this.errorEl,
        h("div", {class: "jr-controls"},
          button("first", "|<", "first (Home)", () => { this.pause(); this.show(0); }),
          button("prev", "<", "previous turn (←)", () => { this.pause(); this.prev(); }),
          this.playButton,
          button("next", ">", "next turn (→)", () => { this.pause(); this.next(); }),
          button("last", ">|", "last (End)", () => { this.pause(); this.show(this.turns); }),
          this.slider, this.turnEl, speed),
        this.boardEl, this.chart.element, this.lineEl, this.eventsEl, this.resultEl);
      this.root.tabIndex = 0;
      this.root.addEventListener("keydown", (ev) => {
        if (ev.target instanceof HTMLSelectElement || ev.target instanceof HTMLInputElement) return;
        const keys = {ArrowRight: () => { this.pause(); this.next(); }, ArrowLeft: () => { this.pause(); this.prev(); },
          " ": () => this.toggle(), Home: () => { this.pause(); this.show(0); }, End: () => { this.pause(); this.show(this.turns); }};
        if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
      });
      this.schedule();
    }

    renderHeader() {
      const header = this.header;
      this.titleEl.replaceChildren(header.game + " · " + header.players.map((p) => p.name).join(" vs "), this.statusEl);
      // A long or multi-line value (a map's text) is shown as its size.
      const shown = (v) => { const t = String(v); return t.length <= 40 && !t.includes("\n") ? t : "<" + t.length + " characters>"; };
      const options = Object.entries(header.options || {}).map(([k, v]) => k + "=" + shown(v)).join(", ");
      // (The seed is in the header of format version 1 only; later ones reveal it at the end.)
      const facts = [header.seed !== undefined ? "seed " + header.seed : "", options,
        header.match_id ? "match " + header.match_id : "", header.judge ? "judge " + header.judge : "",
        header.sandbox ? "sandbox " + header.sandbox : ""];
      this.subEl.replaceChildren(facts.filter((fact) => fact).join(" · "));
    }

    schedule() {
      if (this.pending) return;
      this.pending = true;
      const run = () => { this.pending = false; this.draw(); };
      if (typeof requestAnimationFrame === "function") requestAnimationFrame(run);
      else setTimeout(run, 0);
    }

    status() {
      if (this.error) return ["error", "error"];
      if (this.result !== null) return ["complete", ""];
      if (this.ended) return ["incomplete: no final result", "incomplete"];
      return this.header && this.live ? ["live", "live"] : ["loading", ""];
    }

    draw() {
      const [text, cls] = this.status();
      this.statusEl.textContent = text;
      this.statusEl.className = "jr-status " + cls;
      this.root.dataset.status = cls || text;
      this.errorEl.hidden = !this.error;
      this.errorEl.textContent = this.error || "";
      this.slider.max = String(this.turns);
      this.slider.value = String(this.position);
      this.turnEl.textContent = "turn " + this.position + " / " + this.turns;
      this.root.dataset.turn = String(this.position);
      this.playButton.textContent = this.playing ? "pause" : "play";
      if (!this.header) return;
      const events = this.events.filter((e) => e.turn <= this.position || this.position === this.turns);
      this.ctx.disqualified = new Set(events.map((e) => e.seat));
      const snap = this.snapshots[this.position];
      let board;
      if (snap && snap.unreadable) {
        board = h("div", {}, "This turn line cannot be read by the " + this.header.game + " renderer: " + snap.unreadable);
      } else {
        try {
          board = this.renderer.view(snap, this.ctx, this.position);
        } catch (err) {
          board = h("div", {}, "Cannot show this turn: " + err.message);
        }
      }
      this.boardEl.replaceChildren(board);
      this.lineEl.textContent = this.position > 0 ? this.lines[this.position - 1] : "";
      this.eventsEl.replaceChildren(...events.map((e) => h("div", {class: "jr-event"},
        seatName(this.ctx, e.seat), " disqualified in turn " + e.turn + ": " + e.code + " (" + e.reason + ")")));
      this.resultEl.replaceChildren(this.resultView());
      this.chart.update({
        series: this.series, position: this.position, label: this.renderer.chartLabel || "score",
        names: this.header.players.map((p) => p.label + " " + p.name),
      });
    }

    resultView() {
      const result = this.result;
      if (result === null || this.position < this.turns) return "";
      const verdict = result.draw || result.winner === null ? "Draw" : result.players[result.winner].name + " wins";
      return h("div", {},
        h("strong", {}, verdict), " (" + (result.summary || "") + ") after " + result.turns + " turns",
        h("table", {}, h("thead", {}, h("tr", {}, ["seat", "bot", "score", "rank", "outcome"].map((c) => h("th", {}, c)))),
          h("tbody", {}, result.players.map((p) => h("tr", {},
            h("td", {}, p.label), h("td", {}, p.name), h("td", {}, String(p.score)), h("td", {}, String(p.rank)),
            h("td", {}, p.outcome === "ok" ? "ok" : p.outcome + ": " + p.reason))))));
    }
  }

  function createViewer(root, options) { return new Viewer(root, options); }

  /* Feed a viewer from the server's Server-Sent Events: 'line' events carry one replay line
   * each, an 'end' event closes the stream. EventSource resumes after Last-Event-ID. */
  function connect(viewer, url) {
    const source = new EventSource(url);
    source.addEventListener("line", (ev) => viewer.feedLine(ev.data));
    source.addEventListener("end", () => { source.close(); viewer.end(); });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) viewer.end();
    };
    return source;
  }

  /* Load a whole replay over HTTP (plain text), e.g. the server's replay download. */
  async function load(viewer, url) {
    const response = await fetch(url);
    if (!response.ok) { viewer.fail("cannot load " + url + ": HTTP " + response.status); return; }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const {done, value} = await reader.read();
      if (done) break;
      viewer.feedText(decoder.decode(value, {stream: true}));
    }
    viewer.feedText(decoder.decode());
    viewer.end();
  }

  global.JudgeReplay = {register, createViewer, connect, load, h, renderers, FORMAT_VERSION};
})(typeof window !== "undefined" ? window : globalThis);
