/* JudgeChart: small SVG charts with no dependencies, for the replay viewer (inlined into
 * exported pages, so it works offline) and the server's pages.
 *
 *   JudgeChart.lineChart({series: [{name, cls, points: [[x, y], ...], band: [[x, lo, hi], ...]}],
 *                         xLabel, yLabel, cursor, onPick(x)})   -> an <svg> element
 *   new JudgeChart.LineChart(onPick).update({series: perTurn, position, label, names})
 *   JudgeChart.heatMap({rows, cols, cells: [[{value, text, title}]], min, max}) -> a <table>
 *
 * Names and labels only ever reach the page as text. Long series are reduced to at most one
 * point per horizontal pixel (the last value of each bucket, plus its minimum and maximum,
 * so a spike stays visible).
 */
(function (global) {
  "use strict";

  // The SVG namespace, as the HTML parser assigns it (no URL literal in a page that must
  // show it references nothing outside itself).
  const SVG = (() => {
    if (typeof document === "undefined") return null;
    const probe = document.createElement("template");
    probe.innerHTML = "<svg></svg>";
    return probe.content.firstChild.namespaceURI;
  })();
  const WIDTH = 720, HEIGHT = 190;
  const PAD = {left: 46, right: 22, top: 12, bottom: 30};
  // Eight colours, told apart also by people with a red-green deficiency where possible: a
  // leaderboard charts its top 8, each in a colour of its own.
  const COLORS = ["#0b7285", "#a61e4d", "#9c6500", "#2b8a3e", "#364fc7", "#c92a2a", "#862e9c", "#495057"];

  function el(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  function color(i) { return COLORS[i % COLORS.length]; }

  /* "Nice" axis ticks: 1, 2 or 5 times a power of ten. */
  function ticks(lo, hi, count) {
    if (!(hi > lo)) return [lo];
    const raw = (hi - lo) / Math.max(1, count);
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || raw;
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
    return out;
  }

  function format(v) {
    const a = Math.abs(v);
    if (a >= 1e6) return (v / 1e6).toPrecision(3).replace(/\.?0+$/, "") + "M";
    if (a >= 1e4) return (v / 1e3).toPrecision(3).replace(/\.?0+$/, "") + "k";
    return Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) < 10 ? 2 : 1);
  }

  /* A line chart of series of [x, y] points (and optional [x, lo, hi] bands). */
  function lineChart(spec) {
    const series = spec.series.filter((s) => s.points.length || (s.band && s.band.length));
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const s of series) {
      for (const [x, y] of s.points) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
    }
    // The lines set the scale: a band (wide where little is known yet, a rating's first
    // matches) is drawn within it, cut at the edges, and sets it only when no line does.
    const fromLines = isFinite(y0);
    for (const s of series) {
      for (const [x, lo, hi] of s.band || []) {
        x0 = Math.min(x0, x); x1 = Math.max(x1, x);
        if (!fromLines) { y0 = Math.min(y0, lo); y1 = Math.max(y1, hi); }
      }
    }
    if (fromLines && series.some((s) => s.band && s.band.length)) {
      const margin = Math.max((y1 - y0) * 0.15, 1);  // room for the band around the lines
      y0 -= margin; y1 += margin;
    }
    const svg = el("svg", {viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "jc-chart", role: "img",
      "aria-label": (spec.yLabel || "value") + " over " + (spec.xLabel || "x")});
    if (!series.length || !isFinite(x0)) {
      svg.append(el("text", {x: WIDTH / 2, y: HEIGHT / 2, "text-anchor": "middle", class: "jc-empty"}, spec.empty || "no data yet"));
      return svg;
    }
    if (y0 === y1) { y0 -= 1; y1 += 1; }
    if (x0 === x1) x1 = x0 + 1;
    const xFormat = spec.xFormat || format;
    const pw = WIDTH - PAD.left - PAD.right, ph = HEIGHT - PAD.top - PAD.bottom;
    const sx = (x) => PAD.left + (x - x0) / (x1 - x0) * pw;
    const sy = (y) => PAD.top + (1 - (Math.min(y1, Math.max(y0, y)) - y0) / (y1 - y0)) * ph;
    const grid = el("g", {class: "jc-grid"});
    for (const t of ticks(y0, y1, 4)) {
      grid.append(el("line", {x1: PAD.left, x2: WIDTH - PAD.right, y1: sy(t), y2: sy(t)}));
      grid.append(el("text", {x: PAD.left - 5, y: sy(t) + 4, "text-anchor": "end"}, format(t)));
    }
    for (const t of (spec.xTicks || ticks)(x0, x1, 6)) {
      grid.append(el("text", {x: sx(t), y: HEIGHT - PAD.bottom + 15, "text-anchor": "middle"}, xFormat(t)));
    }
    if (spec.xLabel) grid.append(el("text", {x: WIDTH - PAD.right, y: HEIGHT - 3, "text-anchor": "end", class: "jc-axis"}, spec.xLabel));
    if (spec.yLabel) grid.append(el("text", {x: 2, y: PAD.top - 2, class: "jc-axis"}, spec.yLabel));
    svg.append(grid);
    series.forEach((s, i) => {
      const stroke = s.color || color(s.index === undefined ? i : s.index);
      const g = el("g", {class: "jc-series", "data-series": s.name});
      if (s.band && s.band.length) {
        const upper = s.band.map(([x, , hi]) => sx(x).toFixed(1) + "," + sy(hi).toFixed(1));
        const lower = s.band.slice().reverse().map(([x, lo]) => sx(x).toFixed(1) + "," + sy(lo).toFixed(1));
        g.append(el("polygon", {points: upper.concat(lower).join(" "), fill: stroke, "fill-opacity": 0.15, class: "jc-band"}));
      }
      if (s.points.length) {
        const d = s.points.map(([x, y]) => sx(x).toFixed(1) + "," + sy(y).toFixed(1)).join(" ");
        g.append(el("polyline", {points: d, fill: "none", stroke, "stroke-width": 1.8, "stroke-linejoin": "round"}));
        if (s.points.length <= 40) {
          for (const [x, y] of s.points) g.append(el("circle", {cx: sx(x), cy: sy(y), r: 2.6, fill: stroke}));
        }
      }
      g.append(el("title", {}, s.name));
      svg.append(g);
    });
    if (spec.cursor !== undefined && spec.cursor !== null) {
      svg.append(el("line", {class: "jc-cursor", x1: sx(spec.cursor), x2: sx(spec.cursor), y1: PAD.top, y2: HEIGHT - PAD.bottom}));
    }
    if (spec.onPick) {
      svg.style.cursor = "pointer";
      svg.addEventListener("click", (ev) => {
        const box = svg.getBoundingClientRect();
        const x = (ev.clientX - box.left) / box.width * WIDTH;
        spec.onPick(Math.round(x0 + Math.max(0, Math.min(1, (x - PAD.left) / pw)) * (x1 - x0)));
      });
    }
    return svg;
  }

  function legend(names, hidden) {
    const box = document.createElement("div");
    box.className = "jc-legend";
    names.forEach((name, i) => {
      if (hidden && hidden(i)) return;
      const item = document.createElement("span");
      const swatch = document.createElement("span");
      swatch.className = "jc-swatch";
      swatch.style.background = color(i);
      item.append(swatch, String(name));
      box.append(item);
    });
    return box;
  }

  /* Per-turn values (series[turn][seat]) reduced to at most `buckets` x positions. */
  function reduce(perTurn, seat, buckets) {
    const n = perTurn.length;
    const points = [];
    const step = Math.max(1, Math.ceil(n / buckets));
    for (let start = 0; start < n; start += step) {
      const end = Math.min(n, start + step) - 1;
      if (step > 1) {
        let lo = Infinity, hi = -Infinity, loAt = start, hiAt = start;
        for (let t = start; t <= end; t++) {
          const v = perTurn[t] ? perTurn[t][seat] : NaN;
          if (v < lo) { lo = v; loAt = t; }
          if (v > hi) { hi = v; hiAt = t; }
        }
        if (isFinite(lo) && lo !== hi) {
          for (const t of loAt < hiAt ? [loAt, hiAt] : [hiAt, loAt]) if (t !== end) points.push([t, perTurn[t][seat]]);
        }
      }
      const v = perTurn[end] ? perTurn[end][seat] : NaN;
      if (isFinite(v)) points.push([end, v]);
    }
    return points;
  }

  /* The replay viewer's score chart: redrawn when turns arrive, the cursor on every move. */
  class LineChart {
    constructor(onPick) {
      this.onPick = onPick;
      this.element = document.createElement("figure");
      this.element.className = "jc-figure jr-chart";
      this.element.hidden = true;
      this.drawn = null;
    }

    update({series, position, label, names}) {
      const seats = names.length;
      const usable = series.length > 1 && series.some((values) => values && values.length === seats);
      this.element.hidden = !usable;
      if (!usable) return;
      const key = series.length + "/" + position + "/" + label;
      if (key === this.drawn) return;
      this.drawn = key;
      const lines = names.map((name, seat) => ({name, index: seat, points: reduce(series, seat, 600)}));
      const svg = lineChart({series: lines, xLabel: "turn", cursor: position, onPick: this.onPick});
      const caption = document.createElement("figcaption");
      caption.append(label + " over turns");
      this.element.replaceChildren(caption, svg, legend(names, seats > 12 ? () => true : null));
      this.element.dataset.points = String(series.length - 1);
    }
  }

  /* A table whose cells are shaded from `min` (red) through the middle (neutral) to `max`
   * (green); cells = rows x cols of {value, text, title} or null. */
  function heatMap(spec) {
    const table = document.createElement("table");
    table.className = "jc-heat";
    const min = spec.min === undefined ? 0 : spec.min, max = spec.max === undefined ? 1 : spec.max;
    const head = document.createElement("tr");
    head.append(document.createElement("th"));
    for (const col of spec.cols) {
      const th = document.createElement("th");
      th.append(String(col));
      head.append(th);
    }
    const thead = document.createElement("thead");
    thead.append(head);
    const tbody = document.createElement("tbody");
    spec.rows.forEach((row, r) => {
      const tr = document.createElement("tr");
      const th = document.createElement("th");
      th.append(String(row));
      tr.append(th);
      spec.cols.forEach((col, c) => {
        const td = document.createElement("td");
        const cell = spec.cells[r][c];
        if (cell === null || cell === undefined) {
          td.className = "jc-none";
        } else {
          const f = max > min ? Math.max(0, Math.min(1, (cell.value - min) / (max - min))) : 0.5;
          // red (0) -> pale (0.5) -> green (1)
          const hue = f < 0.5 ? 0 : 130, strength = Math.abs(f - 0.5) * 2;
          td.style.background = `hsl(${hue} 60% ${97 - 42 * strength}%)`;
          td.dataset.value = String(cell.value);
          td.append(String(cell.text === undefined ? format(cell.value) : cell.text));
          if (cell.title) td.title = String(cell.title);
        }
        tr.append(td);
      });
      tbody.append(tr);
    });
    table.append(thead, tbody);
    return table;
  }

  global.JudgeChart = {lineChart, LineChart, heatMap, legend, ticks, color, reduce};
})(typeof window !== "undefined" ? window : globalThis);
