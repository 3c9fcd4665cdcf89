/* scorehouse leaderboard site, 3 of 4: the benchmark page, the leaderboard (columns, sort, filters, groups, URL state, drawn rows and columns). */
(function (S) {
  "use strict";
  var D = S.D, el = S.el, svg = S.svg, missing = S.missing, fmt = S.fmt, readState = S.readState, writeState = S.writeState, markReady = S.markReady, sortIndices = S.sortIndices, sortableTable = S.sortableTable, whisker = S.whisker, moveWhisker = S.moveWhisker, rankChange = S.rankChange, PAGE_SIZE = S.PAGE_SIZE;
  var drawViews = S.drawViews;

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
      var interval = m && m.interval ? m.interval : D.interval;  // the method's own interval, or the pairwise fallback
      if (interval) out.push({ id: "interval", label: "95% rank range", family: "ranking",
        value: function (i) { return interval.low[i]; },
        key: function (i) { return interval.low[i] + " " + interval.high[i] + " " + m.rank[i]; },
        title: (interval === D.interval ? "ranks the pairwise 95% Hoeffding intervals cannot exclude"
          : interval.source === "stored" ? "this method's ranks over the central 95% of its bootstrap resamples of the voters"
          : "ranks this method's own 95% bootstrap intervals cannot exclude") + " (dot: this method's rank)",
        draw: function (cell, i) {
          if (missing(interval.low[i])) { cell.textContent = "—"; return; }
          var box = cell.firstChild;
          if (!box || box.nodeName !== "svg") {
            cell.textContent = "";
            box = cell.appendChild(whisker());
            cell.appendChild(document.createTextNode(""));
          }
          moveWhisker(box, interval.low[i], interval.high[i], m.rank[i], n);
          box.nextSibling.data = " " + interval.low[i] + "–" + interval.high[i];
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
        key: function (i) { return String(D.coverage[i]); },
        draw: function (cell, i) {
          if (!cell.firstChild) cell.appendChild(el("span", { "class": "coverage" }, [el("span", { "class": "bar" }), ""]));
          var box = cell.firstChild;
          box.firstChild.style.width = (D.voters ? Math.round(100 * (D.coverage[i] || 0) / D.voters) : 0) + "%";
          box.lastChild.data = fmt(D.coverage[i]);
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
    var viewsOf = null, drawn = "", pending = false, headerDrawn = "", rowsLayout = "", rowNodes = [];
    var headerCells = {}, sortedBy = "";
    // Where the table is scrolled to, read when it scrolls or the window resizes, never in update(): reading
    // scrollLeft after changing the page makes the browser lay it out there and then once again.
    var view = { left: scroller.scrollLeft, width: scroller.clientWidth || 1400 };
    function scrolled() {
      view = { left: scroller.scrollLeft, width: scroller.clientWidth || 1400 };
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () {
        pending = false;
        if (windowed(columns()).map(function (c) { return c.id; }).join(" ") !== drawn) update();
      });
    }
    scroller.addEventListener("scroll", scrolled);
    window.addEventListener("resize", scrolled);

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
      var left = view.left - MARGIN, right = view.left + view.width + MARGIN;
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
    function header(cols) {
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
      headerCells = {};
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
        var button = el("button", { type: "button", "class": "sort", "data-column": c.id }, [c.label]);
        button.addEventListener("click", function () {
          var sorted = sortedBy === c.id, descending = state.dir === "desc";
          state.dir = sorted ? (descending ? "asc" : "desc") : (c.descending ? "desc" : "asc");
          state.sort = c.id;
          state.p = "";
          update();
        });
        headerCells[c.id] = bottom.appendChild(el("th", { scope: "col", title: c.title || null, "aria-sort": "none",
          "class": c.kind === "text" ? "text" : "num" }, [button]));
      });
      thead.appendChild(top);
      thead.appendChild(bottom);
    }
    // The sorted column's header says so; the header is drawn again only when its columns change.
    function markSorted(sortId, descending) {
      sortedBy = sortId;
      Object.keys(headerCells).forEach(function (id) {
        var value = id === sortId ? (descending ? "descending" : "ascending") : "none";
        if (headerCells[id].getAttribute("aria-sort") !== value) headerCells[id].setAttribute("aria-sort", value);
      });
    }

    function update() {
      state.m = methodSelect.value;
      var m = method();
      document.getElementById("method-summary").textContent = m ? m.summary : "";
      document.getElementById("interval-source").textContent = intervalSource(m);
      var all = columns();
      saveState(all);
      var sortId = state.sort || "rank", descending = state.dir === "desc";
      var sortColumn = all.filter(function (c) { return c.id === sortId; })[0] || all[0];
      var cols = windowed(all);
      var layout = cols.map(function (c) { return c.id + (c.spacer ? ":" + c.width : ""); }).join(" ");
      drawn = cols.map(function (c) { return c.id; }).join(" ");
      var order = sortIndices(visible(), sortColumn.value, descending, lower);
      var pages = Math.max(1, Math.ceil(order.length / PAGE_SIZE));
      var page = Math.min(Math.max(parseInt(state.p || "0", 10) || 0, 0), pages - 1);
      var headed = layout + "|" + (m ? m.id : "");  // the ranking columns' header names the method
      if (headed !== headerDrawn) { header(cols); headerDrawn = headed; }
      markSorted(sortColumn.id, descending);
      drawRows(order.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE), cols, layout);
      status.textContent = order.length ? "systems " + (page * PAGE_SIZE + 1) + "–" + Math.min(order.length, (page + 1) * PAGE_SIZE) +
        " of " + order.length + " shown (" + n + " in total)" : "no system matches the filters (" + n + " in total)";
      drawPager(page, pages);
      if (viewsOf !== m) { viewsOf = m; drawViews(m, state); }  // the views depend on the method (the arena on its filters, in state)
    }

    // The drawn rows are kept and refilled: a sort or filter that keeps the columns sets the text of the cells
    // that changed and creates no element (rebuilding the 50 rows was most of the script's time of an action).
    function drawRows(shown, cols, layout) {
      if (layout !== rowsLayout) { tbody.textContent = ""; rowNodes = []; rowsLayout = layout; }
      while (rowNodes.length > shown.length) tbody.removeChild(rowNodes.pop().tr);
      var added = document.createDocumentFragment();
      shown.forEach(function (i, k) {
        if (k === rowNodes.length) { rowNodes.push(emptyRow(cols)); added.appendChild(rowNodes[k].tr); }
        fillRow(rowNodes[k], i, cols);
      });
      tbody.appendChild(added);
    }
    function emptyRow(cols) {
      var tr = el("tr"), cells = [], link = null;
      cols.forEach(function (c) {
        var cell;
        if (c.spacer) cell = el("td", { "class": "spacer" });
        else if (c.id === "system") { link = el("a"); cell = el("th", { scope: "row", "class": "system" }, [link]); }
        else cell = el("td", { "class": c.kind === "text" ? "text" : "num", "data-column": c.id });
        tr.appendChild(cell);
        cells.push(cell);
      });
      return { tr: tr, cells: cells, link: link, shown: [], system: -1 };
    }
    function fillRow(row, i, cols) {
      var href = "../systems/" + D.page + "/" + D.system_pages[i] + ".html#m=" + encodeURIComponent(methodSelect.value);
      if (row.system !== i) { row.tr.setAttribute("data-system", i); row.system = i; }
      cols.forEach(function (c, k) {
        var cell = row.cells[k];
        if (c.spacer) return;
        if (c.id === "system") {
          if (row.shown[k] !== names[i]) { cell.title = names[i]; row.link.textContent = names[i]; row.shown[k] = names[i]; }
          if (row.link.getAttribute("href") !== href) row.link.setAttribute("href", href);
          return;
        }
        if (c.draw) {  // a drawn cell (a whisker, a bar): its elements are moved, only when what they show changed
          var key = c.key(i);
          if (row.shown[k] !== key) { c.draw(cell, i); row.shown[k] = key; }
        } else {
          var content = c.cell ? c.cell(i) : fmt(c.value(i));
          if (row.shown[k] !== content) { cell.textContent = content; row.shown[k] = content; }
        }
        if (c.kind === "text") {  // the whole of a cut value, in the tooltip
          var whole = missing(c.value(i)) ? "" : String(c.value(i));
          if (cell.title !== whole) cell.title = whole;
        }
      });
    }

    function intervalSource(m) {
      var label = m ? m.label : "this method";
      if (m && m.interval && m.interval.source === "stored") return "95% rank range: " + label + "'s own interval, " +
        "stored with its snapshot (the central " + Math.round(m.interval.confidence * 100) + "% of its ranks over " +
        m.interval.resamples + " bootstrap resamples of the " + m.interval.resampled + ", seed " + m.interval.seed + ").";
      if (m && m.interval) return "95% rank range: " + label + "'s own interval (its snapshot's 95% bootstrap rating " +
        "intervals: the ranks they cannot exclude).";
      var why = m && m.no_interval ? " (no interval of its own: " + m.no_interval + ")" : "";
      if (D.interval) return "95% rank range: the pairwise fallback for " + label + why + ": the ranks the 95% " +
        "Hoeffding intervals of the win probabilities cannot exclude.";
      return "No 95% rank range: " + label + " has no interval of its own" + why + " and this page has no pairwise table.";
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

  S.benchmarkPage = benchmarkPage;
})(window.scorehouse);
