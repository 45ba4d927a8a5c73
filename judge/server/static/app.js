// The judge server's pages: plain JS, no build step, no external network.
// Everything shown from the server goes through textContent (never innerHTML).
"use strict";

const TOKEN_KEY = "judge-token";

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function token() { return localStorage.getItem(TOKEN_KEY) || ""; }

async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  if (token()) headers.authorization = `Bearer ${token()}`;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    options.body = JSON.stringify(options.json);
  }
  const response = await fetch(path, Object.assign({}, options, { headers }));
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    const message = data && data.error ? data.error : `HTTP ${response.status}`;
    throw new Error(message);
  }
  return data;
}

function when(seconds) {
  if (!seconds) return "";
  return new Date(seconds * 1000).toLocaleString();
}

function statusSpan(status) { return h("span", { class: status }, status); }

function botLink(seat) {
  if (seat.bot_id === null || seat.bot_id === undefined) return h("span", { class: "muted" }, seat.name);
  return h("a", { href: `/bots/${seat.bot_id}` }, seat.name);
}

function matchRow(match) {
  const result = match.result;
  let outcome = match.error || "";
  if (result) {
    outcome = result.draw ? `draw (${result.summary})`
      : `${result.players[result.winner].name} wins (${result.summary})`;
  }
  return h("tr", {},
    h("td", {}, h("a", { href: `/matches/${match.id}` }, match.id)),
    h("td", {}, match.game),
    h("td", {}, match.kind),
    h("td", {}, match.seats.map((s, i) => [i ? " vs " : "", botLink(s)])),
    h("td", {}, statusSpan(match.status)),
    h("td", {}, outcome),
    h("td", { class: "muted" }, when(match.finished || match.started || match.created)));
}

function matchTable(matches) {
  return h("table", { id: "matches" },
    h("thead", {}, h("tr", {}, ["match", "game", "kind", "bots", "status", "outcome", "time"]
      .map((t) => h("th", {}, t)))),
    h("tbody", {}, matches.map(matchRow)));
}

function showError(where, error) {
  where.append(h("div", { class: "error-box" }, String(error.message || error)));
}

function nav(page) {
  const links = [["/", "Leaderboard", "leaderboard"], ["/bots", "Bots", "bots"],
    ["/matches", "Matches", "matches"], ["/tournaments", "Tournaments", "tournaments"], ["/contests", "Contests", "contests"],
    ["/upload", "Upload", "upload"], ["/account", "Account", "account"], ["/docs", "API", "docs"]];
  const who = h("span", { class: "who", id: "who" }, token() ? "" : "not signed in");
  const header = h("header", {}, h("a", { class: "brand", href: "/" }, "judge"),
    links.map(([href, text, key]) => h("a", { href, class: key === page ? "here" : null }, text)), who);
  document.body.prepend(header);
  if (token()) {
    api("/api/me").then((me) => { who.textContent = `signed in as ${me.name}`; })
      .catch(() => { who.textContent = "token not accepted"; });
  }
}

async function gamePicker(onChange, initial) {
  const games = await api("/api/games");
  const select = h("select", { id: "game" }, games.map((g) => h("option", { value: g.name }, g.name)));
  const wanted = initial || new URLSearchParams(location.search).get("game");
  if (wanted && games.some((g) => g.name === wanted)) select.value = wanted;
  select.addEventListener("change", () => onChange(select.value));
  return { select, games };
}

// -- charts (JudgeChart, from the replay viewer's chart.js) -----------------------
// Ratings over time: μ−3σ (what the ladder ranks by) as a line, μ±3σ as its band.
function ratingSeries(points, name, index, withBand) {
  return {
    name, index,
    points: points.map((p) => [p.at * 1000, p.score]),
    band: withBand ? points.map((p) => [p.at * 1000, p.mu - 3 * p.sigma, p.mu + 3 * p.sigma]) : [],
  };
}

function timeFormat(series) {
  const times = series.flatMap((s) => s.points.map(([x]) => x));
  const span = Math.max(...times) - Math.min(...times);
  const parts = span < 15 * 60e3 ? { hour: "2-digit", minute: "2-digit", second: "2-digit" }
    : span < 86400e3 ? { hour: "2-digit", minute: "2-digit" } : { month: "short", day: "numeric" };
  return (ms) => new Date(ms).toLocaleString([], parts);
}

function ratingChart(series, yLabel, caption) {
  const svg = JudgeChart.lineChart({
    series, yLabel, xLabel: "time", xFormat: timeFormat(series), empty: "no rated match yet",
  });
  return h("figure", { class: "jc-figure" }, svg,
    series.length > 1 ? JudgeChart.legend(series.map((s) => s.name)) : null,
    h("figcaption", {}, caption));
}

// A tournament's results between every pair: row's points against column (win 1, draw ½).
function crossTable(matches, names) {
  const index = new Map(names.map((n, i) => [n, i]));
  const points = names.map(() => names.map(() => 0));
  const games = names.map(() => names.map(() => 0));
  for (const m of matches) {
    if (m.status !== "finished" || !m.result) continue;
    const players = m.result.players;
    for (const a of players) {
      for (const b of players) {
        if (a === b || !index.has(a.name) || !index.has(b.name)) continue;
        const i = index.get(a.name), j = index.get(b.name);
        games[i][j] += 1;
        points[i][j] += a.rank < b.rank ? 1 : a.rank === b.rank ? 0.5 : 0;
      }
    }
  }
  const cells = names.map((_, i) => names.map((_, j) => (i === j || games[i][j] === 0) ? null : {
    value: points[i][j] / games[i][j],
    text: `${points[i][j]}/${games[i][j]}`,
    title: `${names[i]} against ${names[j]}: ${points[i][j]} points in ${games[i][j]} games`,
  }));
  const table = JudgeChart.heatMap({ rows: names, cols: names, cells, min: 0, max: 1 });
  table.id = "cross-table";
  return table;
}

// -- pages ----------------------------------------------------------------------
const pages = {};

pages.leaderboard = async (main) => {
  const body = h("div", { id: "board" });
  let game = null;
  async function load() {
    const rows = await api(`/api/leaderboard/${encodeURIComponent(game)}`);
    body.replaceChildren(rows.length === 0
      ? h("p", { class: "muted" }, "No bot is listed for this game yet.")
      : h("table", { id: "leaderboard" },
        h("thead", {}, h("tr", {}, ["#", "bot", "owner", "version", "μ−3σ", "μ", "σ", "games",
          "won", "drawn", "lost"].map((t, i) => h("th", { class: i > 3 ? "num" : null }, t)))),
        h("tbody", {}, rows.map((r) => h("tr", {},
          h("td", {}, r.rank), h("td", {}, h("a", { href: `/bots/${r.bot_id}` }, r.bot)),
          h("td", {}, r.owner), h("td", {}, r.version),
          [r.score, r.mu, r.sigma].map((v) => h("td", { class: "num" }, v.toFixed(2))),
          [r.games, r.wins, r.draws, r.losses].map((v) => h("td", { class: "num" }, v)))))));
    if (rows.length === 0) return;
    const history = await api(`/api/leaderboard/${encodeURIComponent(game)}/history`);
    const top = rows.slice(0, 8);
    // Bands of several bots would cover each other: the leader's only.
    const series = top.map((r, i) => ratingSeries(
      history.filter((p) => p.bot_id === r.bot_id && p.version === r.version), r.bot, i, i === 0));
    chart.replaceChildren(ratingChart(series, `μ−3σ (band: μ±3σ of ${top[0].bot})`,
      `μ−3σ after each rated match of the top ${top.length}; the band is the leader's μ±3σ`));
  }
  const chart = h("div", { id: "rating-chart" });
  // Without ?game=, open the game with the most listed bots.
  let busiest = null;
  if (!new URLSearchParams(location.search).get("game")) {
    const counts = {};
    for (const b of await api("/api/bots")) if (b.latest_version) counts[b.game] = (counts[b.game] || 0) + 1;
    busiest = Object.keys(counts).sort((a, b) => counts[b] - counts[a] || a.localeCompare(b))[0] || null;
  }
  const picker = await gamePicker((g) => { game = g; history.replaceState(null, "", `/?game=${g}`); load(); }, busiest);
  game = picker.select.value;
  main.append(h("h1", {}, "Leaderboard"),
    h("div", { class: "toolbar" }, h("label", { for: "game" }, "Game"), picker.select,
      h("span", { class: "muted" }, "ranked by μ−3σ (OpenSkill); updates every few seconds")),
    body, chart);
  await load();
  setInterval(() => load().catch(() => {}), 5000);
};

pages.bots = async (main) => {
  const bots = await api("/api/bots");
  main.append(h("h1", {}, "Bots"), h("table", { id: "bots" },
    h("thead", {}, h("tr", {}, ["bot", "game", "owner", "version", "state"].map((t) => h("th", {}, t)))),
    h("tbody", {}, bots.map((b) => h("tr", {},
      h("td", {}, h("a", { href: `/bots/${b.id}` }, b.name)), h("td", {}, b.game), h("td", {}, b.owner),
      h("td", {}, b.latest_version ?? "—"),
      h("td", {}, b.enabled ? statusSpan(b.status || (b.latest_version ? "listed" : "checking")) : "disabled"))))));
};

pages.bot = async (main) => {
  const ref = decodeURIComponent(location.pathname.split("/")[2]);
  const detail = await api(`/api/bots/${encodeURIComponent(ref)}`);
  const bot = detail.bot;
  main.append(h("h1", {}, `${bot.name} `, h("span", { class: "muted" }, `(${bot.game}, by ${bot.owner})`)));
  let me = null;
  if (token()) { try { me = await api("/api/me"); } catch (e) { me = null; } }
  if (me && (me.id === bot.owner_id || me.is_admin)) {
    const toggle = h("button", { class: "secondary", id: "toggle" }, bot.enabled ? "Disable" : "Enable");
    toggle.addEventListener("click", async () => {
      await api(`/api/bots/${bot.id}`, { method: "PATCH", json: { enabled: !bot.enabled } });
      location.reload();
    });
    main.append(h("div", { class: "toolbar" }, toggle,
      h("a", { href: `/upload?bot=${encodeURIComponent(bot.name)}` }, "Upload a new version")));
  }
  main.append(h("h2", {}, "Versions"), h("table", { id: "versions" },
    h("thead", {}, h("tr", {}, ["version", "uploaded", "file", "state", "check"].map((t) => h("th", {}, t)))),
    h("tbody", {}, detail.versions.map((v) => h("tr", {},
      h("td", {}, v.version), h("td", {}, when(v.created)), h("td", {}, `${v.filename} (${v.size} B)`),
      h("td", {}, statusSpan(v.state)),
      h("td", {}, v.smoke_match ? h("a", { href: `/matches/${v.smoke_match}` }, "check match") : "",
        v.message ? h("pre", {}, v.message) : ""))))));
  const history = await api(`/api/bots/${bot.id}/ratings`);
  if (history.length) {
    const versions = [...new Set(history.map((p) => p.version))];
    const series = versions.map((v, i) => ratingSeries(history.filter((p) => p.version === v), `version ${v}`, i, true));
    main.append(h("h2", {}, "Rating"), h("div", { id: "rating-chart" },
      ratingChart(series, "μ−3σ (band: μ±3σ)",
        `μ−3σ after each of its ${history.length} rated matches; the band μ±3σ narrows as σ does`)));
  }
  const matches = await api(`/api/matches?bot=${bot.id}&limit=25`);
  main.append(h("h2", {}, "Recent matches"), matchTable(matches));
};

pages.matches = async (main) => {
  const params = new URLSearchParams(location.search);
  const status = h("select", { id: "status" }, ["", "queued", "running", "finished", "error", "cancelled"]
    .map((s) => h("option", { value: s }, s || "any status")));
  status.value = params.get("status") || "";
  const holder = h("div");
  async function load() {
    const query = new URLSearchParams({ limit: "100" });
    if (status.value) query.set("status", status.value);
    holder.replaceChildren(matchTable(await api(`/api/matches?${query}`)));
  }
  status.addEventListener("change", load);
  main.append(h("h1", {}, "Matches"), h("div", { class: "toolbar" }, status), holder);
  await load();
  setInterval(() => load().catch(() => {}), 5000);
};

pages.match = async (main) => {
  const id = location.pathname.split("/")[2];
  const match = await api(`/api/matches/${encodeURIComponent(id)}`);
  const state = h("span", { id: "state" }, statusSpan(match.status));
  const summary = h("div", { id: "summary" });
  main.append(h("h1", {}, `Match ${match.id} `, h("span", { class: "muted" }, `(${match.game}, ${match.kind})`)),
    h("p", {}, match.seats.map((s, i) => [i ? " vs " : "", botLink(s)]), " · ", state, " · ",
      h("a", { href: `/api/matches/${match.id}/replay`, id: "download" }, "download replay")),
    summary);
  // The replay package's viewer: the same page as `judge replay --export html`.
  const holder = h("div", { id: "replay", class: "card" });
  main.append(holder);
  const viewer = JudgeReplay.createViewer(holder, { follow: true, live: false });
  window.replayViewer = viewer;
  function showResult(status, result, error) {
    state.replaceChildren(statusSpan(status));
    summary.replaceChildren();
    if (error) summary.append(h("div", { class: "error-box" }, error));
    if (!result) return;
    // Only the bots' owners get their stderr from the server; show it where present.
    for (const p of result.players.filter((x) => x.stderr)) {
      summary.append(h("h2", {}, `stderr of ${p.name}`), h("pre", { class: "stderr" }, p.stderr));
    }
  }
  if (match.status === "cancelled") { showResult(match.status, null, match.error); viewer.end(); return; }
  if (match.status === "finished") {
    // A finished match: its replay file in one go (as an exported page has it), not the stream.
    await JudgeReplay.load(viewer, `/api/matches/${encodeURIComponent(id)}/replay`);
    showResult(match.status, match.result, match.error);
    return;
  }
  viewer.setLive(true);
  // Live: every line there is in one event ('lines'), so the page stays with the match.
  const source = new EventSource(`/api/matches/${encodeURIComponent(id)}/live?batch=true`);
  source.addEventListener("lines", (event) => {
    viewer.feedLines(event.data.split("\n"));
    if (state.textContent === "queued") state.replaceChildren(statusSpan("running"));
  });
  source.addEventListener("end", (event) => {
    source.close();
    viewer.end();
    viewer.setLive(false);
    const end = JSON.parse(event.data);
    showResult(end.status, end.result, end.error);
  });
};

pages.tournaments = async (main) => {
  main.append(h("h1", {}, "Tournaments"));
  if (token()) {
    const picker = await gamePicker(() => {});
    const bots = h("input", { type: "text", id: "t-bots", placeholder: "bot names, comma separated (builtin:NAME too)" });
    const out = h("div");
    const form = h("form", { class: "stack card", id: "new-tournament" }, h("label", {}, "Game"), picker.select,
      h("label", {}, "Bots"), bots,
      h("p", { class: "muted" }, "Each game plays its own tournament format."),
      h("p", {}, h("button", { type: "submit" }, "Start")), out);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const t = await api("/api/tournaments", { method: "POST", json: {
          game: picker.select.value, bots: bots.value.split(",").map((s) => s.trim()).filter(Boolean) } });
        location.href = `/tournaments/${t.id}`;
      } catch (e) { out.replaceChildren(); showError(out, e); }
    });
    main.append(form);
  }
  const list = await api("/api/tournaments");
  main.append(h("table", { id: "tournaments" },
    h("thead", {}, h("tr", {}, ["tournament", "game", "status", "progress", "started"].map((t) => h("th", {}, t)))),
    h("tbody", {}, list.map((t) => h("tr", {},
      h("td", {}, h("a", { href: `/tournaments/${t.id}` }, t.id)), h("td", {}, t.game), h("td", {}, statusSpan(t.status)),
      h("td", {}, t.standings ? `${t.standings.finished}/${t.standings.matches}` : ""), h("td", {}, when(t.created)))))));
};

pages.tournament = async (main) => {
  const id = location.pathname.split("/")[2];
  const holder = h("div");
  main.append(holder);
  async function load() {
    const t = await api(`/api/tournaments/${encodeURIComponent(id)}`);
    const s = t.standings || { table: [], boards: [], finished: 0, matches: t.spec.plan.length, failed: 0 };
    const matches = await api(`/api/matches?tournament=${encodeURIComponent(id)}&limit=500`);
    const boards = (s.boards || []).filter((b) => b.name !== "main").map((b) => [
      h("h2", {}, `${b.name} board: ${b.description}`),
      h("table", { class: "board" }, h("thead", {}, h("tr", {}, ["rank", "bot", "value"].map((x) => h("th", {}, x)))),
        h("tbody", {}, b.rows.map((r) => h("tr", {}, h("td", {}, r.rank), h("td", {}, r.name), h("td", { class: "num" }, r.shown ?? r.value)))))]);
    holder.replaceChildren(h("h1", {}, `Tournament ${t.id} `, h("span", { class: "muted" }, `(${t.game}: ${t.spec.format})`)),
      h("p", {}, statusSpan(t.status), ` · ${s.finished} of ${s.matches} ${s.matches === 1 ? "match" : "matches"} played`,
        s.failed ? ` · ${s.failed} could not be run (not counted)` : ""),
      h("table", { id: "standings" }, h("thead", {}, h("tr", {}, ["rank", "bot", "points", "won", "played", "drawn", "lost", "score", "disqualified"]
        .map((x) => h("th", {}, x)))),
      h("tbody", {}, s.table.map((r) => h("tr", {}, [r.rank, r.name, r.points, r.games_won, r.played, r.draws, r.losses, r.score, r.disqualified]
        .map((v) => h("td", {}, v)))))),
      ...boards.flat(),
      ...(s.table.length > 1 && s.pairwise === false ? [h("h2", {}, "Results between every pair"),
        h("p", { class: "muted", id: "no-cross-table" }, "Every match is an arena of all the bots: the Wins board above counts the pairings each bot won.")] : []),
      ...(s.table.length > 1 && s.pairwise !== false ? [h("h2", {}, "Results between every pair"),
        h("p", { class: "muted" }, "the row's points against the column (win 1, draw ½) out of the games they played"),
        crossTable(matches, s.table.map((r) => r.name))] : []),
      h("h2", {}, "Matches"), matchTable(matches));
    return t.status;
  }
  const timer = setInterval(async () => { if ((await load()) !== "running") clearInterval(timer); }, 3000);
  await load();
};

pages.upload = async (main) => {
  const params = new URLSearchParams(location.search);
  const out = h("div", { id: "upload-result" });
  const tokenInput = h("input", { type: "password", id: "token", value: token(), placeholder: "jt_..." });
  const name = h("input", { type: "text", id: "name", value: params.get("bot") || "", required: true });
  const file = h("input", { type: "file", id: "file", required: true });
  const picker = await gamePicker(() => {});
  const form = h("form", { class: "stack card", id: "upload-form" },
    h("label", { for: "token" }, "API token"), tokenInput,
    h("label", { for: "name" }, "Bot name (an existing bot of yours gets a new version)"), name,
    h("label", { for: "game" }, "Game (for a new bot)"), picker.select,
    h("label", { for: "file" }, "Program, script (.py .js .c) or .tar.gz/.zip with bot.toml"), file,
    h("p", {}, h("button", { type: "submit", id: "submit" }, "Upload")));
  main.append(h("h1", {}, "Upload a bot"), form, out);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    localStorage.setItem(TOKEN_KEY, tokenInput.value.trim());
    out.replaceChildren(h("p", { class: "muted" }, "uploading…"));
    const data = new FormData();
    data.append("file", file.files[0]);
    let path = "/api/bots";
    let existing = null;
    existing = (await api("/api/bots")).find((b) => b.name === name.value) || null;
    if (existing) path = `/api/bots/${existing.id}/versions`;
    else { data.append("name", name.value); data.append("game", picker.select.value); }
    try {
      const uploaded = await api(path, { method: "POST", body: data });
      const v = uploaded.version;
      const stateLine = h("p", { id: "check-state" }, statusSpan(v.state), " — checking it against a built-in bot");
      const message = h("pre", { id: "check-message", hidden: true });
      out.replaceChildren(h("p", {}, "Uploaded ", h("a", { href: `/bots/${uploaded.bot.id}` }, uploaded.bot.name),
        ` version ${v.version}; `, h("a", { href: `/matches/${v.smoke_match}` }, "its check match")), stateLine, message);
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 700));
        const now = await api(`/api/bots/${uploaded.bot.id}/versions/${v.version}`);
        if (now.state === "checking") continue;
        stateLine.replaceChildren(statusSpan(now.state));
        message.textContent = now.message;
        message.hidden = false;
        break;
      }
    } catch (e) { out.replaceChildren(); showError(out, e); }
  });
};

pages.account = async (main) => {
  const input = h("input", { type: "password", id: "token", value: token(), placeholder: "jt_..." });
  const out = h("div");
  const save = h("button", { type: "submit" }, "Save token in this browser");
  const form = h("form", { class: "stack card" }, h("label", { for: "token" }, "API token"), input, h("p", {}, save));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    localStorage.setItem(TOKEN_KEY, input.value.trim());
    location.reload();
  });
  main.append(h("h1", {}, "Account"), form, out);
  if (!token()) return;
  try {
    const me = await api("/api/me");
    const tokens = await api("/api/tokens");
    out.append(h("p", {}, `Signed in as ${me.name}${me.is_admin ? " (admin)" : ""}.`),
      h("h2", {}, "Tokens"), h("ul", {}, tokens.map((t) => h("li", {}, `#${t.id} ${t.label || "(no label)"} — ${when(t.created)}`))));
  } catch (e) { showError(out, e); }
};

pages.docs = async (main) => {
  const doc = await api("/openapi.json");
  main.append(h("h1", {}, "API"), h("p", {}, "JSON over HTTP. Reads are public; writes need ",
    h("code", {}, "Authorization: Bearer <token>"), ". The machine-readable document is ",
    h("a", { href: "/openapi.json" }, "/openapi.json"), "."));
  const rows = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      rows.push(h("tr", {}, h("td", {}, h("code", {}, method.toUpperCase())), h("td", {}, h("code", {}, path)),
        h("td", {}, op.summary), h("td", {}, op.security ? "token" : "")));
    }
  }
  main.append(h("table", { id: "endpoints" }, h("thead", {}, h("tr", {}, ["method", "path", "what", "auth"].map((t) => h("th", {}, t)))),
    h("tbody", {}, rows)));
};

pages.notfound = async (main) => {
  main.append(h("h1", {}, "Not found"),
    h("p", { id: "not-found" }, "There is no page at ", h("code", {}, location.pathname), "."),
    h("p", {}, "Try the ", h("a", { href: "/" }, "leaderboard"), ", the ", h("a", { href: "/matches" }, "matches"),
      " or the ", h("a", { href: "/bots" }, "bots"), "."));
};

// -- boot --------------------------------------------------------------------------
window.addEventListener("DOMContentLoaded", async () => {
  const page = document.body.dataset.page;
  nav(page);
  const main = document.querySelector("main");
  try {
    await pages[page](main);
  } catch (e) {
    showError(main, e);
  }
});
