/* scorehouse leaderboard site, 2 of 4: the views beside the leaderboard (bump chart, pairwise heatmap, critical difference, agreement, history, arena). */
(function (S) {
  "use strict";
  var D = S.D, el = S.el, svg = S.svg, missing = S.missing, fmt = S.fmt, readState = S.readState, writeState = S.writeState, markReady = S.markReady, sortIndices = S.sortIndices, sortableTable = S.sortableTable, whisker = S.whisker, rankChange = S.rankChange, PAGE_SIZE = S.PAGE_SIZE;

  /* ---------- views beside the leaderboard ---------- */
  function drawViews(m, state) {
    var views = document.getElementById("views");
    views.textContent = "";
    if (D.arena) views.appendChild(arenaView(state));
    if (D.methods.length > 1) views.appendChild(bumpView(m));
    if (D.pairwise) views.appendChild(pairwiseView());
    if (D.critical) views.appendChild(criticalView());
    if (D.methods.length > 1) views.appendChild(agreementView());
    views.appendChild(historyView(m));
  }
  function section(id, title, note) {
    return el("section", { id: id, "class": "view" }, [el("h2", null, [title]), note ? el("p", { "class": "note" }, [note]) : null]);
  }
  function topSystems(m, count) {
    var order = [];
    for (var i = 0; i < D.systems.length; i++) if (!missing(m.rank[i])) order.push(i);
    return sortIndices(order, function (i) { return m.rank[i]; }, false, D.systems).slice(0, count);
  }
  function bumpView(m) {
    var box = section("rank-by-method", "Rank by method",
      "The chosen method's top 20 under every method: a crossing line is a system the choice of method moves.");
    var shown = topSystems(m, 20), methods = D.methods;
    var worst = 1;
    shown.forEach(function (i) { methods.forEach(function (mm) { if (!missing(mm.rank[i])) worst = Math.max(worst, mm.rank[i]); }); });
    var left = 110, step = 130, top = 30, height = 18 * Math.min(worst, 40);
    var width = left + step * (methods.length - 1) + 110;
    var chart = svg("svg", { width: width, height: top + height + 20, viewBox: "0 0 " + width + " " + (top + height + 20),
      role: "img", "aria-label": "rank of the top systems under each method", "class": "bump" });
    function y(rank) { return top + height * (Math.min(rank, worst) - 1) / Math.max(worst - 1, 1); }
    methods.forEach(function (mm, k) {
      chart.appendChild(svg("text", { x: left + step * k, y: 14, "text-anchor": "middle", "class": "label" }, mm.label));
    });
    shown.forEach(function (i, line) {
      var points = [];
      methods.forEach(function (mm, k) { if (!missing(mm.rank[i])) points.push((left + step * k) + "," + y(mm.rank[i])); });
      var group = svg("g", { "class": "line s" + (line % 8) });
      group.appendChild(svg("title", {}, D.systems[i]));
      group.appendChild(svg("polyline", { points: points.join(" ") }));
      methods.forEach(function (mm, k) {
        if (missing(mm.rank[i])) return;
        group.appendChild(svg("circle", { cx: left + step * k, cy: y(mm.rank[i]), r: 8 }));
        group.appendChild(svg("text", { x: left + step * k, y: y(mm.rank[i]) + 4, "text-anchor": "middle" }, String(mm.rank[i])));
      });
      chart.appendChild(group);
    });
    box.appendChild(el("div", { "class": "scroll" }, [chart]));
    var table = el("table", { "class": "board small", id: "ranks-by-method" }, [el("caption", null, ["Ranks of the top 20 by method"])]);
    table.appendChild(el("thead", null, [el("tr", null, [el("th", { scope: "col" }, ["system"])].concat(
      methods.map(function (mm) { return el("th", { scope: "col" }, [mm.label]); })))]));
    table.appendChild(el("tbody", null, shown.map(function (i) {
      return el("tr", null, [el("th", { scope: "row" }, [D.systems[i]])].concat(
        methods.map(function (mm) { return el("td", { "class": "num" }, [fmt(mm.rank[i])]); })));
    })));
    box.appendChild(el("details", null, [el("summary", null, ["as a table"]), el("div", { "class": "scroll" }, [table])]));
    return box;
  }
  function shade(p) {
    // red (a loses) through white to blue (a wins): a colour-blind-safe diverging scale; the number is always shown too
    var t = Math.max(0, Math.min(1, p)), low = [178, 24, 43], mid = [247, 247, 247], high = [33, 102, 172];
    var end = t < 0.5 ? low : high, f = t < 0.5 ? 1 - 2 * t : 2 * t - 1;
    return "rgb(" + mid.map(function (v, k) { return Math.round(v + (end[k] - v) * f); }).join(",") + ")";
  }
  function pairwiseView() {
    var box = section("pairwise", "Pairwise win probabilities",
      "Row a, column b: the probability that a beats b on a voter (missing scores imputed uniformly, Himmi et al. 2023), " +
      "with its 95% Hoeffding interval in the cell's tooltip. * : the interval excludes 1/2.");
    var P = D.pairwise;
    var table = el("table", { "class": "heatmap" });
    table.appendChild(el("thead", null, [el("tr", null, [el("th", { scope: "col" }, ["a \\ b"])].concat(P.systems.map(function (j, k) {
      return el("th", { scope: "col", title: D.systems[j] }, [String(k + 1)]);
    })))]));
    table.appendChild(el("tbody", null, P.systems.map(function (i, r) {
      return el("tr", null, [el("th", { scope: "row" }, [(r + 1) + ". " + D.systems[i]])].concat(P.cells[r].map(function (cell, c) {
        if (!cell) return el("td", { "class": "diagonal" }, [""]);
        var td = el("td", { title: "P(" + D.systems[i] + " beats " + D.systems[P.systems[c]] + ") = " + cell[0] +
          "; 95% interval [" + cell[1] + ", " + cell[2] + "]" }, [cell[0].toFixed(2) + (cell[3] ? "*" : "")]);
        td.style.background = shade(cell[0]);
        if (Math.abs(cell[0] - 0.5) > 0.33) td.className = "dark";
        return td;
      })));
    })));
    box.appendChild(el("div", { "class": "scroll" }, [table]));
    return box;
  }
  function criticalView() {
    // Demšar's critical-difference diagram: average ranks on an axis, the CD as a bar, and a thick line
    // joining each maximal group of systems whose average ranks are closer than the CD.
    var C = D.critical, k = C.systems.length;
    var box = section("critical-difference", "Critical difference",
      "Average rank over the " + C.voters + " voters of the " + k + " systems every voter scored (1 = best); " +
      "systems joined by a line differ by less than the Nemenyi critical difference (CD = " + C.cd.toFixed(3) +
      ", alpha = " + C.alpha + "), so the test cannot tell them apart (Demšar 2006).");
    if (k <= 40) {
      var half = Math.ceil(k / 2), width = 1160, left = 360, right = width - 360, top = 50;
      var cliqueRows = C.cliques.length, labelTop = top + 20 + 8 * cliqueRows;
      var height = labelTop + 18 * half + 10;
      function x(r) { return left + (right - left) * (k > 1 ? (r - 1) / (k - 1) : 0); }
      var chart = svg("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img",
        "aria-label": "critical-difference diagram", "class": "critical" });
      chart.appendChild(svg("line", { x1: x(1), x2: x(k), y1: top, y2: top, "class": "axis" }));
      for (var r = 1; r <= k; r++) {
        chart.appendChild(svg("line", { x1: x(r), x2: x(r), y1: top - 4, y2: top, "class": "axis" }));
        chart.appendChild(svg("text", { x: x(r), y: top - 8, "text-anchor": "middle" }, String(r)));
      }
      chart.appendChild(svg("line", { x1: x(1), x2: x(1 + C.cd), y1: 14, y2: 14, "class": "cd" }));
      chart.appendChild(svg("text", { x: x(1 + C.cd) + 6, y: 18 }, "CD"));
      C.cliques.forEach(function (c, n) {
        var y = top + 10 + 8 * n;
        chart.appendChild(svg("line", { x1: x(C.ranks[c[0]]) - 3, x2: x(C.ranks[c[1]]) + 3, y1: y, y2: y, "class": "clique" }));
      });
      C.systems.forEach(function (system, p) {
        var onLeft = p < half, row = onLeft ? p : k - 1 - p, y = labelTop + 18 * row, xr = x(C.ranks[p]);
        var end = onLeft ? left - 20 : right + 20;
        chart.appendChild(svg("polyline", { points: xr + "," + top + " " + xr + "," + y + " " + end + "," + y, "class": "lead" }));
        chart.appendChild(svg("text", { x: onLeft ? end - 4 : end + 4, y: y + 4, "text-anchor": onLeft ? "end" : "start" },
          D.systems[system] + " (" + C.ranks[p].toFixed(2) + ")"));
      });
      box.appendChild(el("div", { "class": "scroll" }, [chart]));
    }
    var table = el("table", { "class": "board small", id: "critical-table" }, [el("caption", null, ["Average ranks"])]);
    table.appendChild(el("thead", null, [el("tr", null, ["system", "average rank", "not told apart from"].map(function (h) {
      return el("th", { scope: "col" }, [h]);
    }))]));
    table.appendChild(el("tbody", null, C.systems.map(function (system, p) {
      var near = C.systems.filter(function (_, q) { return q !== p && Math.abs(C.ranks[q] - C.ranks[p]) < C.cd; });
      return el("tr", null, [el("th", { scope: "row" }, [D.systems[system]]), el("td", { "class": "num" }, [C.ranks[p].toFixed(3)]),
        el("td", { "class": "text" }, [near.length + " system(s)"])]);
    })));
    box.appendChild(el("details", null, [el("summary", null, ["as a table"]), el("div", { "class": "scroll" }, [table])]));
    return box;
  }
  function agreementView() {
    var box = section("agreement", "Agreement of the methods", "Kendall tau-b between two methods' rankings on their common systems.");
    var table = el("table", { "class": "board small" });
    table.appendChild(el("thead", null, [el("tr", null, [el("th", null, [""])].concat(D.methods.map(function (m) {
      return el("th", { scope: "col" }, [m.label]);
    })))]));
    table.appendChild(el("tbody", null, D.methods.map(function (m, r) {
      return el("tr", null, [el("th", { scope: "row" }, [m.label])].concat(D.agreement[r].map(function (v) {
        return el("td", { "class": "num" }, [missing(v) ? "n/a" : v.toFixed(3)]);
      })));
    })));
    box.appendChild(el("div", { "class": "scroll" }, [table]));
    return box;
  }
  function historyView(m) {
    var box = section("history", "History: " + m.label,
      m.history.length ? "Rank over this method's snapshots (oldest first) and what changed since the previous one."
        : "First snapshot of this method: nothing to compare with yet.");
    if (!m.history.length) return box;
    var previous = m.history[m.history.length - 1].rank, changes = [];
    for (var i = 0; i < D.systems.length; i++) {
      if (previous[i] !== m.rank[i]) changes.push(i);
    }
    changes = sortIndices(changes, function (i) { return m.rank[i]; }, false, D.systems);
    var list = el("table", { "class": "board small", id: "changes" }, [el("caption", null, ["Since the previous snapshot: " + changes.length + " system(s) moved"])]);
    list.appendChild(el("thead", null, [el("tr", null, ["system", "before", "now", "change"].map(function (h) { return el("th", { scope: "col" }, [h]); }))]));
    list.appendChild(el("tbody", null, changes.map(function (i) {
      return el("tr", null, [el("th", { scope: "row" }, [D.systems[i]]), el("td", { "class": "num" }, [fmt(previous[i])]),
        el("td", { "class": "num" }, [fmt(m.rank[i])]), el("td", { "class": "num" }, [rankChange(m.rank[i], previous[i])])]);
    })));
    box.appendChild(el("div", { "class": "scroll" }, [list]));
    var shown = topSystems(m, 20);
    var over = el("table", { "class": "board small" }, [el("caption", null, ["Rank over snapshots (top 20 now)"])]);
    over.appendChild(el("thead", null, [el("tr", null, [el("th", { scope: "col" }, ["system"])].concat(
      m.history.map(function (h) { return el("th", { scope: "col", title: h.snapshot }, [h.created]); }),
      [el("th", { scope: "col", title: m.snapshot }, [m.created + " (latest)"])]))]));
    over.appendChild(el("tbody", null, shown.map(function (i) {
      return el("tr", null, [el("th", { scope: "row" }, [D.systems[i]])].concat(
        m.history.map(function (h) { return el("td", { "class": "num" }, [fmt(h.rank[i])]); }),
        [el("td", { "class": "num" }, [fmt(m.rank[i])])]));
    })));
    box.appendChild(el("div", { "class": "scroll" }, [over]));
    return box;
  }
  function arenaView(state) {
    // The arena leaderboard of the page's battles, or of those with one value of one battle column (judge,
    // category, language): every value's ratings were computed in Python as 'scorehouse arena --<column> <value>'
    // would, so choosing one swaps tables and never rates anything here.  One column at a time.
    var A = D.arena, box = section("arena", "Arena", "Bradley–Terry ratings on the Elo scale with 95% bootstrap intervals; " +
      "rank (UB): 1 + the systems whose lower bound is above this system's upper bound.");
    var columns = [], selects = {};
    A.selections.forEach(function (s) { if (columns.indexOf(s.column) < 0) columns.push(s.column); });
    var filters = el("div", { "class": "controls", id: "arena-filters" });
    columns.forEach(function (column) {
      var values = A.selections.filter(function (s) { return s.column === column; });
      var select = el("select", { id: "arena-" + column }, [el("option", { value: "" }, ["all"])].concat(values.map(function (s) {
        return el("option", { value: s.value }, [s.value + " (" + s.battles + " battles)"]);
      })));
      select.value = values.some(function (s) { return s.value === state["a." + column]; }) ? state["a." + column] : "";
      select.addEventListener("change", function () {
        columns.forEach(function (other) { if (other !== column) { selects[other].value = ""; state["a." + other] = ""; } });
        state["a." + column] = select.value;
        writeState(state);
        draw();
      });
      selects[column] = select;
      filters.appendChild(el("label", null, [column + " ", select]));
    });
    if (columns.length) box.appendChild(filters);
    var status = el("p", { "class": "status", id: "arena-status", "aria-live": "polite" });
    box.appendChild(status);
    var table = el("table", { "class": "board", id: "arena-table" });
    table.appendChild(el("thead", null, [el("tr", null, ["rank", "rank (UB)", "system", "rating", "95% interval", "battles", "win rate"].map(
      function (h) { return el("th", { scope: "col" }, [h]); }))]));
    var tbody = table.appendChild(el("tbody"));
    box.appendChild(el("div", { "class": "scroll" }, [table]));
    function chosen() {
      var column = columns.filter(function (c) { return selects[c].value; })[0];
      return column ? A.selections.filter(function (s) { return s.column === column && s.value === selects[column].value; })[0] : null;
    }
    function draw() {
      var choice = chosen(), board = choice ? choice.board : A;
      tbody.textContent = "";
      if (!board) {
        status.textContent = "No ratings of the battles with " + choice.column + " = " + choice.value + ": " + choice.error;
        return;
      }
      status.textContent = choice ? "The " + choice.battles + " battles with " + choice.column + " = " + choice.value +
        " (as 'scorehouse arena --" + choice.column + " " + choice.value + "' rates them)" : "All the battles of this page";
      var order = [];
      for (var i = 0; i < D.systems.length; i++) if (!missing(board.rank[i])) order.push(i);
      order = sortIndices(order, function (i) { return board.rank[i]; }, false, D.systems);
      var lowest = Math.min.apply(null, order.map(function (i) { return board.lower[i]; }));
      var highest = Math.max.apply(null, order.map(function (i) { return board.upper[i]; }));
      function x(v) { return 4 + 102 * (v - lowest) / Math.max(highest - lowest, 1e-9); }
      order.forEach(function (i) {
        var bar = svg("svg", { width: 110, height: 14, "aria-hidden": "true", "class": "whisker" });
        bar.appendChild(svg("line", { x1: x(board.lower[i]), x2: x(board.upper[i]), y1: 7, y2: 7, "class": "range" }));
        bar.appendChild(svg("circle", { cx: x(board.rating[i]), cy: 7, r: 3, "class": "point" }));
        tbody.appendChild(el("tr", null, [el("td", { "class": "num" }, [String(board.rank[i])]),
          el("td", { "class": "num" }, [String(board.rank_ub[i])]), el("th", { scope: "row" }, [D.systems[i]]),
          el("td", { "class": "num" }, [board.rating[i].toFixed(1)]),
          el("td", { "class": "num" }, [bar, " [" + board.lower[i].toFixed(1) + ", " + board.upper[i].toFixed(1) + "]"]),
          el("td", { "class": "num" }, [String(board.n_battles[i])]), el("td", { "class": "num" }, [board.win_rate[i].toFixed(3)])]));
      });
    }
    draw();
    return box;
  }

  S.drawViews = drawViews;
})(window.scorehouse);
