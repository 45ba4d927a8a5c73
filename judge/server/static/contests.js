// The contests' pages: the list, a contest (countdown, rules, board, chart, final round,
// results, heat map) and an entrant's own submissions. Uses app.js's h(), api() and charts.
"use strict";

function contestName() {
  return decodeURIComponent(location.pathname.split("/")[2] || "");
}

function phaseSpan(phase) { return h("span", { class: `phase ${phase}` }, phase); }

function duration(seconds) {
  seconds = Math.max(0, Math.floor(seconds));
  const d = Math.floor(seconds / 86400), hh = Math.floor(seconds % 86400 / 3600);
  const mm = Math.floor(seconds % 3600 / 60), ss = seconds % 60;
  const pad = (n) => String(n).padStart(2, "0");
  return `${d ? `${d}d ` : ""}${pad(hh)}:${pad(mm)}:${pad(ss)}`;
}

pages.contests = async (main) => {
  const rows = await api("/api/contests");
  main.append(h("h1", {}, "Contests"));
  if (rows.length === 0) {
    main.append(h("p", { class: "muted" }, "No contest yet. The admin creates one with ",
      h("code", {}, "judge contest create FILE.toml"), "."));
    return;
  }
  main.append(h("table", { id: "contests" },
    h("thead", {}, h("tr", {}, ["contest", "game", "phase", "opens (UTC)", "closes (UTC)"].map((t) => h("th", {}, t)))),
    h("tbody", {}, rows.map((c) => h("tr", {},
      h("td", {}, h("a", { href: `/contests/${encodeURIComponent(c.name)}` }, c.title)),
      h("td", {}, c.game), h("td", {}, phaseSpan(c.phase)),
      h("td", {}, c.opens.replace("+00:00", "Z")), h("td", {}, c.closes.replace("+00:00", "Z")))))));
};

pages.contest = async (main) => {
  const name = contestName();
  const base = `/api/contests/${encodeURIComponent(name)}`;
  let contest = await api(base);
  // The server's clock (a test may set it): the countdown runs from it, not this machine's.
  let offset = contest.now - Date.now() / 1000;
  const countdown = h("p", { id: "countdown", class: "countdown" });
  function tick() {
    const now = Date.now() / 1000 + offset;
    const opens = Date.parse(contest.opens) / 1000, closes = Date.parse(contest.closes) / 1000;
    if (now < opens) countdown.textContent = `opens in ${duration(opens - now)}`;
    else if (now < closes) countdown.textContent = `closes in ${duration(closes - now)}`;
    else if (contest.phase === "finished") countdown.textContent = "finished: the results are below";
    else if (contest.phase === "error") countdown.textContent = `stopped: ${contest.error}`;
    else countdown.textContent = "closed: the final round is being played";
  }
  const rules = h("section", { id: "rules", class: "card rules" });
  // Rendered from Markdown on the server with raw HTML off, then sanitised (nh3):
  // the one place a page takes HTML from the server.
  rules.innerHTML = contest.rules_html || "<p>No rules text.</p>";
  const status = h("p", { id: "contest-status" });
  const boardBox = h("section", { id: "contest-board" });
  const finalBox = h("section", { id: "final-round" });
  const resultsBox = h("section", { id: "results" });
  main.append(
    h("h1", {}, contest.title, " ", phaseSpan(contest.phase)),
    h("p", { class: "muted" }, `${contest.game} · opens ${contest.opens.replace("+00:00", "Z")} · closes `
      + `${contest.closes.replace("+00:00", "Z")} (UTC)`),
    countdown, status,
    h("p", {}, h("a", { href: `/contests/${encodeURIComponent(name)}/mine`, id: "mine-link" }, "Your entries and submissions"),
      " · ", h("a", { href: `${base}/archive`, id: "archive-link" }, "Archive (once finished)")),
    rules, boardBox, finalBox, resultsBox);

  async function showBoard() {
    const board = await api(`${base}/board`);
    const title = board.frozen
      ? `Board (frozen as of ${new Date(board.as_of * 1000).toISOString().replace(".000", "")})`
      : "Board";
    const table = board.rows.length === 0 ? h("p", { class: "muted" }, "No entry has passed its check yet.")
      : h("table", { id: "board-table" },
        h("thead", {}, h("tr", {}, ["#", "entry", "entrant", "μ−3σ", "μ", "σ", "games", "won", "drawn", "lost"]
          .map((t, i) => h("th", { class: i > 2 ? "num" : null }, t)))),
        h("tbody", {}, board.rows.map((r) => h("tr", {}, h("td", {}, r.rank),
          h("td", {}, h("a", { href: `/bots/${r.bot_id}` }, r.entry)), h("td", {}, r.user),
          [r.score, r.mu, r.sigma].map((v) => h("td", { class: "num" }, v.toFixed(2))),
          [r.games, r.wins, r.draws, r.losses].map((v) => h("td", { class: "num" }, v))))));
    const top = board.rows.slice(0, 8);
    const series = top.map((r, i) => ratingSeries(
      board.history.filter((p) => p.bot_id === r.bot_id && p.version === r.version), r.entry, i, i === 0));
    const chart = top.length ? h("div", { id: "contest-chart" }, ratingChart(series,
      "μ−3σ", "μ−3σ of the entries after each of the contest's ladder matches")) : null;
    // (replaceChildren would show a null as the text "null")
    boardBox.replaceChildren(...[h("h2", {}, title),
      board.frozen ? h("p", { class: "muted", id: "frozen-note" },
        "The board is frozen for the last hours of the contest; the final round decides.") : null,
      table, chart].filter(Boolean));
  }

  async function showFinal() {
    const final = contest.final;
    if (!final) { finalBox.replaceChildren(); return; }
    const pct = final.total ? Math.round(100 * final.done / final.total) : 100;
    finalBox.replaceChildren(h("h2", {}, "Final round"),
      h("p", { id: "final-progress" }, `${final.done} of ${final.total} matches played`
        + (final.failed ? ` (${final.failed} could not be run)` : "") + ` · ${final.entries.length} entries, frozen at close`),
      h("progress", { max: 100, value: pct }));
  }

  async function showResults() {
    const results = contest.results;
    if (!results) { resultsBox.replaceChildren(); return; }
    const matches = await api(`${base}/matches`);
    const rows = results.standings.map((r) => {
      const bar = h("span", { class: "interval" }, h("span", {
        class: "interval-bar",
        style: `margin-left:${(r.low * 100).toFixed(1)}%;width:${Math.max(0.5, (r.high - r.low) * 100).toFixed(1)}%`,
      }));
      return h("tr", { class: r.tied ? "tied" : null },
        h("td", {}, r.tied ? `${r.rank} (tied)` : r.rank), h("td", {}, r.entry),
        h("td", { class: "num" }, r.score.toFixed(3)),
        h("td", { class: "num" }, `${r.low.toFixed(3)} – ${r.high.toFixed(3)}`), h("td", {}, bar),
        [r.matches, r.wins, r.draws, r.losses].map((v) => h("td", { class: "num" }, v)));
    });
    const cross = results.cross;
    const cells = cross.names.map((_, i) => cross.names.map((_, j) => (i === j || !cross.games[i][j]) ? null : {
      value: cross.points[i][j] / cross.games[i][j],
      text: `${cross.points[i][j]}/${cross.games[i][j]}`,
      title: `${cross.names[i]} against ${cross.names[j]}: ${cross.points[i][j]} points in ${cross.games[i][j]} games`,
    }));
    const heat = JudgeChart.heatMap({ rows: cross.names, cols: cross.names, cells, min: 0, max: 1 });
    heat.id = "cross-table";
    resultsBox.replaceChildren(h("h2", {}, "Results"),
      h("p", { class: "muted" }, `Score: the share of opponents beaten per match (a draw half), over the final round's `
        + `${results.matches} matches; interval: ${results.method}. Entries whose interval reaches the leader's are tied at 1.`),
      h("table", { id: "results-table" },
        h("thead", {}, h("tr", {}, ["rank", "entry", "score", "95 % interval", "", "matches", "won", "drawn", "lost"]
          .map((t, i) => h("th", { class: i > 1 && i !== 4 ? "num" : null }, t)))),
        h("tbody", {}, rows)),
      h("h3", {}, "Cross table"), h("p", { class: "muted" }, "The row's points against the column (win 1, draw ½), green won, red lost."),
      heat,
      h("h3", {}, "Final-round matches"), matchTable(matches),
      h("p", {}, "Check the results yourself: ", h("code", {}, `judge contest archive ${name} && judge contest verify contest-${name}.tar.gz`)));
  }

  tick();
  setInterval(tick, 1000);
  await Promise.all([showBoard(), showFinal(), showResults()]);
  setInterval(async () => {
    try {
      const before = contest.phase;
      contest = await api(base);
      offset = contest.now - Date.now() / 1000;
      status.textContent = "";
      await showBoard();
      await showFinal();
      if (before !== contest.phase || (contest.results && !resultsBox.childElementCount)) await showResults();
    } catch (e) { status.textContent = String(e.message || e); }
  }, 5000);
};

pages["contest-mine"] = async (main) => {
  const name = contestName();
  const base = `/api/contests/${encodeURIComponent(name)}`;
  main.append(h("h1", {}, "Your entries: ", h("a", { href: `/contests/${encodeURIComponent(name)}` }, name)));
  if (!token()) {
    main.append(h("p", {}, "Sign in first: put your token on the ", h("a", { href: "/account" }, "account page"), "."));
    return;
  }
  const box = h("div", { id: "mine" });
  const form = h("form", { class: "stack card", id: "contest-submit" },
    h("label", { for: "contest-file" }, "Submit a version (a program, script or .tar.gz/.zip with bot.toml)"),
    h("input", { type: "file", id: "contest-file", name: "file", required: true }),
    h("button", { type: "submit" }, "Submit"), h("p", { id: "submit-status", class: "muted" }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const said = form.querySelector("#submit-status");
    const body = new FormData();
    body.append("file", form.querySelector("#contest-file").files[0]);
    try {
      const reply = await api(`${base}/versions`, { method: "POST", body });
      said.textContent = `submitted ${reply.bot.name}@${reply.version.version}; checking it`;
      await load();
    } catch (e) { said.textContent = String(e.message || e); }
  });
  main.append(box, form);

  async function load() {
    const mine = await api(`${base}/me`);
    const rows = mine.submissions.map((s) => h("tr", { class: s.entry === mine.counted ? "counting" : null },
      h("td", {}, h("a", { href: `/bots/${s.bot_id}` }, s.entry)), h("td", {}, when(s.submitted)),
      h("td", {}, statusSpan(s.state)),
      h("td", {}, s.smoke_match ? h("a", { href: `/matches/${s.smoke_match}` }, "check match") : ""),
      h("td", { class: "message" }, s.message),
      h("td", {}, s.entry === mine.counted ? "counts" : (mine.counts === "chosen" && s.state === "ready"
        ? h("button", { onclick: async () => { await api(`${base}/choice`, { method: "POST", json: { entry: s.entry } }); await load(); } }, "choose")
        : ""))));
    box.replaceChildren(
      h("p", { id: "left-today" }, `${mine.left_today} of ${mine.limit} submissions left today (UTC day; resets ${mine.resets.replace("+00:00", "Z")})`),
      h("p", {}, mine.may_enter ? `The contest is ${mine.phase}.` : "You are not among this contest's entrants."),
      h("p", {}, mine.counted ? `Counting: ${mine.counted} (${mine.counts === "chosen" ? "your choice, or else your latest checked version" : "your latest checked version"})`
        : "No version of yours has passed its check yet."),
      mine.submissions.length ? h("table", { id: "submissions" },
        h("thead", {}, h("tr", {}, ["version", "submitted", "check", "", "result of the check", ""].map((t) => h("th", {}, t)))),
        h("tbody", {}, rows)) : h("p", { class: "muted" }, "No submission yet."));
  }
  await load();
  setInterval(() => load().catch(() => {}), 3000);
};
