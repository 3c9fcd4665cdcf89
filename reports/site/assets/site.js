/* scorehouse leaderboard site: draws the index, benchmark and system pages from window.SCOREHOUSE_DATA.
   Written for this site, no library.  Text from the data is only ever set with textContent, never as HTML.
   Data is column-major: data.systems[i] is system i, every per-system array is in that order, so sorting
   and filtering move integer indices.  The page state (method, sort, filters, open groups, page) is the
   URL's fragment, so a view can be shared. */
(function () {
  "use strict";
  var D = window.SCOREHOUSE_DATA;
  var PAGE_SIZE = 50;  // rows drawn at once: a sort or filter redraws one page, never all the systems
  var SVG = "http://www.w3.org/2000/svg";

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    var key;
    for (key in attrs || {}) {
      if (attrs[key] !== null && attrs[key] !== undefined) node.setAttribute(key, attrs[key]);
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    });
    return node;
  }
  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    for (var key in attrs) node.setAttribute(key, attrs[key]);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function missing(v) { return v === null || v === undefined || (typeof v === "number" && isNaN(v)); }
  function fmt(v) {
    if (missing(v)) return "—";
    if (typeof v !== "number") return String(v);
    if (Number.isInteger(v)) return String(v);
    return Math.abs(v) >= 1000 ? v.toFixed(0) : String(Number(v.toPrecision(4)));
  }
  function readState() {
    var state = {};
    new URLSearchParams(location.hash.slice(1)).forEach(function (value, key) { state[key] = value; });
    return state;
  }
  function writeState(state) {
    var params = new URLSearchParams();
    Object.keys(state).sort().forEach(function (key) {
      if (state[key] !== "" && state[key] !== null && state[key] !== undefined) params.set(key, state[key]);
    });
    history.replaceState(null, "", "#" + params.toString());
  }
  function markReady() {
    document.body.setAttribute("data-ready", String(Math.round(performance.now())));
  }
  // Order of indices by a per-system value: missing values last whatever the direction, then by name.
  function sortIndices(indices, value, descending, names) {
    return indices.sort(function (a, b) {
      var x = value(a), y = value(b), mx = missing(x), my = missing(y);
      if (mx || my) return mx && my ? (names[a] < names[b] ? -1 : 1) : (mx ? 1 : -1);
      if (x === y) return names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0;
      if (typeof x === "string") return (x < y ? -1 : 1) * (descending ? -1 : 1);
      return descending ? y - x : x - y;
    });
  }
  function sortableTable(table, columns, rowsOf, initial) {
    // A small table (index, system page) with a sort button in every header.
    var sort = initial;
    var thead = table.tHead || table.createTHead();
    var tbody = table.tBodies[0] || table.appendChild(el("tbody"));
    function draw() {
      thead.textContent = "";
      var row = el("tr");
      columns.forEach(function (c, k) {
        var direction = sort.column === k ? (sort.descending ? "descending" : "ascending") : "none";
        var button = el("button", { type: "button", "class": "sort" }, [c.label]);
        button.addEventListener("click", function () {
          sort = { column: k, descending: sort.column === k ? !sort.descending : !!c.descending };
          draw();
        });
        row.appendChild(el("th", { scope: "col", "aria-sort": direction, title: c.title || null }, [button]));
      });
      thead.appendChild(row);
      var rows = rowsOf();
      var order = sortIndices(rows.map(function (_, i) { return i; }),
        function (i) { return columns[sort.column].value(rows[i]); }, sort.descending,
        rows.map(function (r) { return String(columns[0].value(r)); }));
      tbody.textContent = "";
      order.forEach(function (i) {
        tbody.appendChild(el("tr", null, columns.map(function (c, k) {
          var content = c.cell ? c.cell(rows[i]) : fmt(c.value(rows[i]));
          return el(k === 0 ? "th" : "td", k === 0 ? { scope: "row" } : { "class": c.kind === "text" ? null : "num" }, [content]);
        })));
      });
    }
    draw();
    return draw;
  }

  /* ---------- index ---------- */
  function indexPage() {
    var search = document.getElementById("search");
    var state = readState();
    search.value = state.q || "";
    var columns = [
      { label: "benchmark", kind: "text", value: function (b) { return b.title; },
        cell: function (b) { return el("a", { href: b.page }, [b.title]); } },
      { label: "level", kind: "text", value: function (b) { return b.level; } },
      { label: "systems", value: function (b) { return b.systems; }, descending: true },
      { label: "voters", value: function (b) { return b.voters; }, descending: true, title: "voters (task columns, or instances) of the newest snapshot" },
      { label: "coverage", value: function (b) { return b.coverage; }, descending: true,
        title: "share of the (system, voter) cells that hold a score",
        cell: function (b) { return missing(b.coverage) ? "—" : (100 * b.coverage).toFixed(1) + "%"; } },
      { label: "methods", value: function (b) { return b.methods; }, descending: true },
      { label: "agreement (min tau)", value: function (b) { return b.agreement; },
        title: "the smallest Kendall tau-b between two methods' rankings" },
      { label: "last update (UTC)", kind: "text", value: function (b) { return b.updated; }, descending: true },
      { label: "leader (first method)", kind: "text", value: function (b) { return b.leader; } }
    ];
    function rows() {
      var q = search.value.trim().toLowerCase();
      return D.benchmarks.filter(function (b) { return !q || b.title.toLowerCase().indexOf(q) >= 0; });
    }
    var draw = sortableTable(document.getElementById("benchmarks"), columns, rows, { column: 0, descending: false });
    search.addEventListener("input", function () { writeState({ q: search.value }); draw(); });
    markReady();
  }

  /* ---------- benchmark ---------- */
  function groupMeans(n) {
    return D.groups.map(function (g) {
      var sum = new Float64Array(n), count = new Uint32Array(n), out = new Array(n);
      g.columns.forEach(function (c) {
        var column = D.scores[c];
        for (var i = 0; i < n; i++) if (column[i] !== null) { sum[i] += column[i]; count[i] += 1; }
      });
      for (var i = 0; i < n; i++) out[i] = count[i] ? sum[i] / count[i] : null;
      return out;
    });
  }
  function whisker(low, high, point, n) {
    var width = 110, pad = 4;
    function x(rank) { return pad + (width - 2 * pad) * (n > 1 ? (rank - 1) / (n - 1) : 0); }
    var box = svg("svg", { width: width, height: 14, viewBox: "0 0 " + width + " 14", "aria-hidden": "true", "class": "whisker" });
    box.appendChild(svg("line", { x1: pad, x2: width - pad, y1: 7, y2: 7, "class": "axis" }));
    if (!missing(low)) box.appendChild(svg("line", { x1: x(low), x2: x(high), y1: 7, y2: 7, "class": "range" }));
    if (!missing(point)) box.appendChild(svg("circle", { cx: x(point), cy: 7, r: 3, "class": "point" }));
    return box;
  }
  function rankChange(now, before) {
    if (missing(now)) return "";
    if (missing(before)) return "new";
    return now < before ? "↑" + (before - now) : now > before ? "↓" + (now - before) : "=";
  }

  function benchmarkPage() {
    var n = D.systems.length;
    var names = D.systems, lower = names.map(function (s) { return s.toLowerCase(); });
    var means = groupMeans(n);
    var state = readState();
    var methodSelect = document.getElementById("method"), search = document.getElementById("search");
    var minCoverage = document.getElementById("min-coverage");
    document.getElementById("facts").textContent = n + " systems · " + D.voters + " voters · " +
      D.methods.length + " methods · " + D.tasks.length + " task columns · updated " + (D.updated || "—") + " UTC";
    D.notes.forEach(function (note) { document.getElementById("notes").appendChild(el("p", { "class": "note" }, [note])); });
    D.methods.forEach(function (m) { methodSelect.appendChild(el("option", { value: m.id }, [m.label])); });
    function method() {
      return D.methods.filter(function (m) { return m.id === state.m; })[0] || D.methods[0];
    }
    methodSelect.value = method() ? method().id : "";
    search.value = state.q || "";
    minCoverage.value = state.cov || "";
    if (D.coverage.every(missing)) minCoverage.parentNode.hidden = true;

    // Metadata filters: a range for numbers and dates, a "contains" box for text.
    var filterBox = document.getElementById("metadata-filters");
    var filterInputs = {};
    D.metadata.forEach(function (field) {
      var saved = (state["f." + field.name] || "").split("..");
      if (field.kind === "number" || field.kind === "date") {
        var type = field.kind === "number" ? "number" : "text";
        var low = el("input", { type: type, id: "f-" + field.name + "-min", "class": "range", placeholder: "min", "aria-label": field.name + " at least" });
        var high = el("input", { type: type, id: "f-" + field.name + "-max", "class": "range", placeholder: "max", "aria-label": field.name + " at most" });
        low.value = saved[0] || ""; high.value = saved[1] || "";
        filterInputs[field.name] = [low, high];
        filterBox.appendChild(el("span", { "class": "filter" }, [field.name + " ", low, " – ", high]));
      } else {
        var box = el("input", { type: "text", id: "f-" + field.name, "aria-label": field.name + " contains", placeholder: "contains" });
        box.value = saved[0] || "";
        filterInputs[field.name] = [box];
        filterBox.appendChild(el("span", { "class": "filter" }, [field.name + " ", box]));
      }
    });

    // Column families: ranking, metadata, then one per task group (its mean, and its tasks when open).
    var open = {}, hidden = {};
    (state.open || "").split(",").forEach(function (g) { if (g) open[g] = true; });
    (state.hide || "").split(",").forEach(function (g) { if (g) hidden[g] = true; });
    var groupsBox = document.getElementById("groups");
    var families = [];
    if (D.metadata.length) families.push({ key: "meta", label: "metadata" });
    D.groups.forEach(function (g, k) { families.push({ key: "g" + k, label: g.name }); });
    if (!families.length) groupsBox.parentNode.hidden = true;
    families.forEach(function (f) {
      var box = el("input", { type: "checkbox", id: "show-" + f.key, "data-family": f.key });
      box.checked = !hidden[f.key];
      box.addEventListener("change", function () { hidden[f.key] = !box.checked; update(); });
      groupsBox.appendChild(el("label", { "class": "family" }, [box, " " + f.label]));
    });

    function columns() {
      var m = method(), out = [];
      var previous = m && m.history.length ? m.history[m.history.length - 1].rank : null;
      out.push({ id: "rank", label: "rank", family: "ranking", value: function (i) { return m.rank[i]; },
        cell: function (i) { return missing(m.rank[i]) ? "—" : m.tied[i] ? m.rank[i] + "=" : String(m.rank[i]); },
        title: "rank under the chosen method (= : tied with another system)" });
      out.push({ id: "system", label: "system", family: "ranking", kind: "text", value: function (i) { return lower[i]; } });
      out.push({ id: "score", label: "score", family: "ranking", value: function (i) { return m.score[i]; }, descending: true,
        title: "the method's score (its scale depends on the method)" });
      if (D.interval) out.push({ id: "interval", label: "95% rank range", family: "ranking",
        value: function (i) { return D.interval.low[i]; },
        title: "ranks the pairwise 95% Hoeffding intervals cannot exclude (dot: this method's rank)",
        cell: function (i) {
          if (missing(D.interval.low[i])) return "—";
          return el("span", { "class": "interval" }, [whisker(D.interval.low[i], D.interval.high[i], m.rank[i], n),
            " " + D.interval.low[i] + "–" + D.interval.high[i]]);
        } });
      if (m && m.stat_group) out.push({ id: "tiedgroup", label: "tied group", family: "ranking",
        value: function (i) { return m.stat_group[i]; },
        title: "systems with the same number are statistically tied: neighbours the pairwise intervals cannot tell apart",
        cell: function (i) { return missing(m.stat_group[i]) ? "—" : "G" + (m.stat_group[i] + 1); } });
      if (previous) out.push({ id: "change", label: "since previous", family: "ranking",
        value: function (i) { return missing(previous[i]) || missing(m.rank[i]) ? null : previous[i] - m.rank[i]; }, descending: true,
        title: "rank change since this method's previous snapshot",
        cell: function (i) { return rankChange(m.rank[i], previous[i]); } });
      if (!D.coverage.every(missing)) out.push({ id: "cov", label: "coverage", family: "ranking", descending: true,
        value: function (i) { return D.coverage[i]; }, title: "voters that scored the system (of " + D.voters + ")",
        cell: function (i) {
          var bar = el("span", { "class": "bar" });
          bar.style.width = (D.voters ? Math.round(100 * (D.coverage[i] || 0) / D.voters) : 0) + "%";
          return el("span", { "class": "coverage" }, [bar, fmt(D.coverage[i])]);
        } });
      if (!hidden.meta) D.metadata.forEach(function (field) {
        out.push({ id: "meta:" + field.name, label: field.name, family: "meta", kind: field.kind === "number" ? null : "text",
          value: function (i) { return field.values[i]; }, descending: field.kind === "number" });
      });
      D.groups.forEach(function (g, k) {
        if (hidden["g" + k]) return;
        var single = g.columns.length === 1;
        if (!single) out.push({ id: "g:" + k, label: "mean", family: "g" + k, descending: true,
          value: function (i) { return means[k][i]; }, title: "mean of the group's scores the system has" });
        if (single || open["g" + k]) g.columns.forEach(function (c) {
          var task = D.tasks[c];
          out.push({ id: "t:" + c, label: task.name, family: "g" + k, descending: task.higher,
            value: function (i) { return D.scores[c][i]; },
            title: task.task + " · " + task.metric + (task.higher ? " (higher is better)" : " (lower is better)") +
              (task.ranked ? "" : " · not a voter") });
        });
      });
      return out;
    }

    function visible() {
      var q = search.value.trim().toLowerCase(), cov = parseFloat(minCoverage.value);
      var tests = [];
      if (q) tests.push(function (i) { return lower[i].indexOf(q) >= 0; });
      if (!isNaN(cov)) tests.push(function (i) { return (D.coverage[i] || 0) >= cov; });
      D.metadata.forEach(function (field) {
        var inputs = filterInputs[field.name];
        if (inputs.length === 2) {
          var low = inputs[0].value.trim(), high = inputs[1].value.trim();
          var parse = field.kind === "number" ? parseFloat : String;
          if (low) tests.push(function (i) { var v = field.values[i]; return !missing(v) && v >= parse(low); });
          if (high) tests.push(function (i) { var v = field.values[i]; return !missing(v) && v <= parse(high); });
        } else if (inputs[0].value.trim()) {
          var text = inputs[0].value.trim().toLowerCase();
          tests.push(function (i) { var v = field.values[i]; return !missing(v) && String(v).toLowerCase().indexOf(text) >= 0; });
        }
      });
      var out = [];
      for (var i = 0; i < n; i++) {
        var keep = true;
        for (var t = 0; t < tests.length && keep; t++) keep = tests[t](i);
        if (keep) out.push(i);
      }
      return out;
    }

    var table = document.getElementById("leaderboard"), scroller = table.parentNode, MARGIN = 600;
    var thead = table.tHead, tbody = table.tBodies[0];
    var pager = document.getElementById("pager"), status = document.getElementById("status");
    var viewsOf = null, drawn = "", pending = false;
    scroller.addEventListener("scroll", function () {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () {
        pending = false;
        if (windowed(columns()).map(function (c) { return c.id; }).join(" ") !== drawn) update();
      });
    });

    function saveState(cols) {
      state.m = methodSelect.value;
      state.q = search.value.trim();
      state.cov = minCoverage.value;
      state.open = Object.keys(open).filter(function (k) { return open[k]; }).join(",");
      state.hide = Object.keys(hidden).filter(function (k) { return hidden[k]; }).join(",");
      D.metadata.forEach(function (field) {
        var values = filterInputs[field.name].map(function (input) { return input.value.trim(); });
        state["f." + field.name] = values.join("").length ? values.join("..") : "";
      });
      if (!cols.some(function (c) { return c.id === state.sort; })) { state.sort = ""; state.dir = ""; }
      writeState(state);
    }

    // Fixed column widths: with table-layout fixed the browser lays the table out from these alone,
    // not from every cell (on a page of 100 rows x 150 columns that is most of the time of a sort).
    var WIDTHS = { rank: 64, system: 260, score: 84, interval: 190, tiedgroup: 70, change: 84, cov: 96 };
    function widthOf(c) { return c.width || WIDTHS[c.id] || (c.family === "meta" ? 120 : 96); }
    // Only the columns near the visible part of the table are drawn; the others are one empty spacer
    // column on each side as wide as they are, so the scroll bar and positions are those of the full table.
    function windowed(cols) {
      var left = scroller.scrollLeft - MARGIN, right = scroller.scrollLeft + (scroller.clientWidth || 1400) + MARGIN;
      var x = 0, out = [], skipped = 0;
      cols.forEach(function (c) {
        var w = widthOf(c);
        if (c.family === "ranking" || (x + w > left && x < right)) {
          if (skipped) out.push({ id: "spacer", family: "spacer", width: skipped, spacer: true });
          skipped = 0;
          out.push(c);
        } else {
          skipped += w;
        }
        x += w;
      });
      if (skipped) out.push({ id: "spacer", family: "spacer", width: skipped, spacer: true });
      return out;
    }
    function header(cols, sortId, descending) {
      var colgroup = table.querySelector("colgroup") || table.insertBefore(el("colgroup"), thead);
      colgroup.textContent = "";
      var total = 0;
      cols.forEach(function (c) {
        var width = widthOf(c);
        var col = el("col");
        col.style.width = width + "px";
        colgroup.appendChild(col);
        total += width;
      });
      table.style.width = total + "px";
      thead.textContent = "";
      var top = el("tr"), bottom = el("tr");
      var spans = [];
      cols.forEach(function (c) {
        var last = spans[spans.length - 1];
        if (last && last.family === c.family) last.count += 1; else spans.push({ family: c.family, count: 1 });
      });
      spans.forEach(function (s) {
        if (s.family === "spacer") { top.appendChild(el("td", { colspan: s.count, "class": "spacer", "aria-hidden": "true" })); return; }
        var label = s.family === "ranking" ? method().label : s.family === "meta" ? "metadata" : D.groups[+s.family.slice(1)].name;
        var cell = el("th", { scope: "colgroup", colspan: s.count, "class": "family " + (s.family === "ranking" ? "" : "grouped") });
        var k = s.family.charAt(0) === "g" ? +s.family.slice(1) : -1;
        if (k >= 0 && D.groups[k].columns.length > 1) {
          var toggle = el("button", { type: "button", "class": "toggle", "aria-expanded": open[s.family] ? "true" : "false",
            "data-group": s.family }, [(open[s.family] ? "▾ " : "▸ ") + label + " (" + D.groups[k].columns.length + ")"]);
          toggle.addEventListener("click", function () { open[s.family] = !open[s.family]; update(); });
          cell.appendChild(toggle);
        } else {
          cell.textContent = label;
        }
        top.appendChild(cell);
      });
      cols.forEach(function (c) {
        if (c.spacer) { bottom.appendChild(el("td", { "class": "spacer", "aria-hidden": "true" })); return; }
        var sorted = c.id === sortId;
        var button = el("button", { type: "button", "class": "sort", "data-column": c.id }, [c.label]);
        button.addEventListener("click", function () {
          state.dir = sorted ? (descending ? "asc" : "desc") : (c.descending ? "desc" : "asc");
          state.sort = c.id;
          state.p = "";
          update();
        });
        bottom.appendChild(el("th", { scope: "col", title: c.title || null, "aria-sort": sorted ? (descending ? "descending" : "ascending") : "none",
          "class": c.kind === "text" ? "text" : "num" }, [button]));
      });
      thead.appendChild(top);
      thead.appendChild(bottom);
    }

    function update() {
      state.m = methodSelect.value;
      var m = method();
      document.getElementById("method-summary").textContent = m ? m.summary : "";
      var all = columns();
      saveState(all);
      var sortId = state.sort || "rank", descending = state.dir === "desc";
      var sortColumn = all.filter(function (c) { return c.id === sortId; })[0] || all[0];
      var cols = windowed(all);
      drawn = cols.map(function (c) { return c.id; }).join(" ");
      var order = sortIndices(visible(), sortColumn.value, descending, lower);
      var pages = Math.max(1, Math.ceil(order.length / PAGE_SIZE));
      var page = Math.min(Math.max(parseInt(state.p || "0", 10) || 0, 0), pages - 1);
      header(cols, sortColumn.id, descending);
      tbody.textContent = "";
      var rows = document.createDocumentFragment();
      order.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE).forEach(function (i) {
        var row = el("tr", { "data-system": i });
        cols.forEach(function (c) {
          if (c.spacer) {
            row.appendChild(el("td", { "class": "spacer" }));
          } else if (c.id === "system") {
            row.appendChild(el("th", { scope: "row", "class": "system", title: names[i] },
              [el("a", { href: "../systems/" + D.page + "/" + D.system_pages[i] + ".html#m=" + encodeURIComponent(methodSelect.value) }, [names[i]])]));
          } else {
            var text = c.kind === "text" && !missing(c.value(i)) ? String(c.value(i)) : null;  // the whole of a cut value
            row.appendChild(el("td", { "class": c.kind === "text" ? "text" : "num", "data-column": c.id, title: text },
              [c.cell ? c.cell(i) : fmt(c.value(i))]));
          }
        });
        rows.appendChild(row);
      });
      tbody.appendChild(rows);
      status.textContent = order.length ? "systems " + (page * PAGE_SIZE + 1) + "–" + Math.min(order.length, (page + 1) * PAGE_SIZE) +
        " of " + order.length + " shown (" + n + " in total)" : "no system matches the filters (" + n + " in total)";
      drawPager(page, pages);
      if (viewsOf !== m) { viewsOf = m; drawViews(m); }  // the views depend on the method alone
    }

    function drawPager(page, pages) {
      pager.textContent = "";
      if (pages < 2) return;
      [["previous", page - 1], ["next", page + 1]].forEach(function (p) {
        var button = el("button", { type: "button", "data-page": p[1] }, [p[0]]);
        button.disabled = p[1] < 0 || p[1] >= pages;
        button.addEventListener("click", function () { state.p = String(p[1]); update(); });
        pager.appendChild(button);
      });
      pager.appendChild(el("span", null, [" page " + (page + 1) + " of " + pages]));
    }

    [search, minCoverage].forEach(function (input) { input.addEventListener("input", function () { state.p = ""; update(); }); });
    Object.keys(filterInputs).forEach(function (name) {
      filterInputs[name].forEach(function (input) { input.addEventListener("input", function () { state.p = ""; update(); }); });
    });
    methodSelect.addEventListener("change", function () { state.p = ""; if (state.sort !== "system") { state.sort = ""; state.dir = ""; } update(); });
    document.getElementById("controls").addEventListener("submit", function (event) { event.preventDefault(); });
    update();
    markReady();
  }

  /* ---------- views beside the leaderboard ---------- */
  function drawViews(m) {
    var views = document.getElementById("views");
    views.textContent = "";
    if (D.arena) views.appendChild(arenaView());
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
  function arenaView() {
    var A = D.arena, box = section("arena", "Arena", "Bradley–Terry ratings on the Elo scale with 95% bootstrap intervals; " +
      "rank (UB): 1 + the systems whose lower bound is above this system's upper bound.");
    var order = [];
    for (var i = 0; i < D.systems.length; i++) if (!missing(A.rank[i])) order.push(i);
    order = sortIndices(order, function (i) { return A.rank[i]; }, false, D.systems);
    var lowest = Math.min.apply(null, order.map(function (i) { return A.lower[i]; }));
    var highest = Math.max.apply(null, order.map(function (i) { return A.upper[i]; }));
    var table = el("table", { "class": "board", id: "arena-table" });
    table.appendChild(el("thead", null, [el("tr", null, ["rank", "rank (UB)", "system", "rating", "95% interval", "battles", "win rate"].map(
      function (h) { return el("th", { scope: "col" }, [h]); }))]));
    table.appendChild(el("tbody", null, order.map(function (i) {
      var bar = svg("svg", { width: 110, height: 14, "aria-hidden": "true", "class": "whisker" });
      function x(v) { return 4 + 102 * (v - lowest) / Math.max(highest - lowest, 1e-9); }
      bar.appendChild(svg("line", { x1: x(A.lower[i]), x2: x(A.upper[i]), y1: 7, y2: 7, "class": "range" }));
      bar.appendChild(svg("circle", { cx: x(A.rating[i]), cy: 7, r: 3, "class": "point" }));
      return el("tr", null, [el("td", { "class": "num" }, [String(A.rank[i])]), el("td", { "class": "num" }, [String(A.rank_ub[i])]),
        el("th", { scope: "row" }, [D.systems[i]]), el("td", { "class": "num" }, [A.rating[i].toFixed(1)]),
        el("td", { "class": "num" }, [bar, " [" + A.lower[i].toFixed(1) + ", " + A.upper[i].toFixed(1) + "]"]),
        el("td", { "class": "num" }, [String(A.n_battles[i])]), el("td", { "class": "num" }, [A.win_rate[i].toFixed(3)])]);
    })));
    box.appendChild(el("div", { "class": "scroll" }, [table]));
    return box;
  }

  /* ---------- system ---------- */
  function systemPage() {
    var s = +document.body.getAttribute("data-system"), n = D.systems.length, state = readState();
    var link = document.getElementById("benchmark-link");
    link.setAttribute("href", "../../benchmarks/" + D.page + ".html" + (state.m ? "#m=" + encodeURIComponent(state.m) : ""));
    var root = document.getElementById("system");
    var methods = el("table", { "class": "board", id: "methods" }, [el("caption", null, ["How each method ranks it"])]);
    root.appendChild(el("div", { "class": "scroll" }, [methods]));
    sortableTable(methods, [
      { label: "method", kind: "text", value: function (m) { return m.label; } },
      { label: "rank", value: function (m) { return m.rank[s]; },
        cell: function (m) { return missing(m.rank[s]) ? "—" : m.rank[s] + (m.tied[s] ? "=" : ""); } },
      { label: "of", value: function (m) { return m.rank.filter(function (r) { return !missing(r); }).length; } },
      { label: "score", value: function (m) { return m.score[s]; },
        cell: function (m) { return el("span", { "data-value": missing(m.score[s]) ? "" : String(m.score[s]) }, [fmt(m.score[s])]); } },
      { label: "summary", kind: "text", value: function (m) { return m.summary; } }
    ], function () { return D.methods; }, { column: 1, descending: false });

    // Per task: the score and its rank among the systems that have one (1 = best, ties share the smallest rank).
    var taskRows = D.tasks.map(function (task, c) {
      var column = D.scores[c], mine = column[s], better = 0, scored = 0;
      for (var i = 0; i < n; i++) {
        var v = column[i];
        if (v === null) continue;
        scored += 1;
        if (mine !== null && (task.higher ? v > mine : v < mine)) better += 1;
      }
      var group = D.groups.filter(function (g) { return g.columns.indexOf(c) >= 0; })[0];
      // a column that is not a voter (a leaderboard's own average) has no rank, as in the catalog's task_ranks
      var rank = mine === null || !task.ranked ? null : better + 1;
      return { task: task, c: c, score: mine, rank: rank, scored: scored, group: group ? group.name : "" };
    });
    var tasks = el("table", { "class": "board", id: "tasks" }, [el("caption", null, ["Scores on every task, with the rank among the systems scored"])]);
    root.appendChild(el("div", { "class": "scroll" }, [tasks]));
    sortableTable(tasks, [
      { label: "task", kind: "text", value: function (r) { return r.task.task; } },
      { label: "metric", kind: "text", value: function (r) { return r.task.metric; } },
      { label: "group", kind: "text", value: function (r) { return r.group; } },
      { label: "score", value: function (r) { return r.score; }, cell: function (r) {
        return el("span", { "data-value": missing(r.score) ? "" : String(r.score) }, [fmt(r.score)]);
      } },
      { label: "rank", value: function (r) { return r.rank; } },
      { label: "systems scored", value: function (r) { return r.scored; } },
      { label: "direction", kind: "text", value: function (r) { return r.task.higher ? "higher is better" : "lower is better"; } }
    ], function () { return taskRows; }, { column: 0, descending: false });

    // Wins, ties and losses against each rival over the ranked task columns both have a score on.
    if (D.tasks.length) {
      var ranked = [];
      D.tasks.forEach(function (task, c) { if (task.ranked && D.scores[c][s] !== null) ranked.push(c); });
      var rivals = [];
      for (var r = 0; r < n; r++) {
        if (r === s) continue;
        var wins = 0, ties = 0, losses = 0;
        for (var k = 0; k < ranked.length; k++) {
          var c = ranked[k], mine = D.scores[c][s], theirs = D.scores[c][r];
          if (theirs === null) continue;
          var sign = D.tasks[c].higher ? 1 : -1;
          if (mine === theirs) ties += 1; else if ((mine - theirs) * sign > 0) wins += 1; else losses += 1;
        }
        rivals.push({ r: r, wins: wins, ties: ties, losses: losses });
      }
      var versus = el("table", { "class": "board", id: "rivals" }, [el("caption", null, ["Wins, ties and losses against each rival (ranked task columns both scored)"])]);
      root.appendChild(el("div", { "class": "scroll" }, [versus]));
      sortableTable(versus, [
        { label: "rival", kind: "text", value: function (v) { return D.systems[v.r]; },
          cell: function (v) { return el("a", { href: D.system_pages[v.r] + ".html" }, [D.systems[v.r]]); } },
        { label: "wins", value: function (v) { return v.wins; }, descending: true },
        { label: "ties", value: function (v) { return v.ties; }, descending: true },
        { label: "losses", value: function (v) { return v.losses; }, descending: true }
      ], function () { return rivals; }, { column: 0, descending: false });
    }
    markReady();
  }

  var page = document.body.getAttribute("data-page");
  if (!D) {
    document.getElementById("main").appendChild(el("p", { "class": "note" }, ["The data file of this page is missing: rebuild the site with 'scorehouse site --output DIR'."]));
  } else if (page === "index") indexPage();
  else if (page === "benchmark") benchmarkPage();
  else if (page === "system") systemPage();
})();
