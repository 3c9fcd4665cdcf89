/* scorehouse leaderboard site, 1 of 4: shared helpers (window.scorehouse).  Written for this site, no library.
   Text from the data is only ever set with textContent, never as HTML.  Data is column-major:
   data.systems[i] is system i and every per-system array is in that order, so sorting and filtering
   move integer indices.  The page state (method, sort, filters, open groups, page) is the URL's
   fragment, so a view can be shared.  Load order: base.js, views.js, benchmark.js, pages.js. */
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
    var hash = "#" + params.toString();
    if (hash !== (location.hash || "#")) history.replaceState(null, "", hash);  // replaceState costs ms: only on a change
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

  // A rank range as a whisker: an axis, the range and the rank as a dot, drawn once and moved by moveWhisker
  // (a sort moves 50 whiskers: setting three coordinates each is much cheaper than drawing them again).
  var WHISKER_WIDTH = 110, WHISKER_PAD = 4;
  function whisker() {
    var box = svg("svg", { width: WHISKER_WIDTH, height: 14, viewBox: "0 0 " + WHISKER_WIDTH + " 14", "aria-hidden": "true", "class": "whisker" });
    box.appendChild(svg("line", { x1: WHISKER_PAD, x2: WHISKER_WIDTH - WHISKER_PAD, y1: 7, y2: 7, "class": "axis" }));
    box.appendChild(svg("line", { x1: 0, x2: 0, y1: 7, y2: 7, "class": "range" }));
    box.appendChild(svg("circle", { cx: 0, cy: 7, r: 3, "class": "point" }));
    return box;
  }
  function moveWhisker(box, low, high, point, n) {
    function x(rank) { return WHISKER_PAD + (WHISKER_WIDTH - 2 * WHISKER_PAD) * (n > 1 ? (rank - 1) / (n - 1) : 0); }
    var range = box.childNodes[1], dot = box.childNodes[2];
    range.setAttribute("x1", x(low));
    range.setAttribute("x2", x(high));
    if (missing(point)) dot.setAttribute("visibility", "hidden");
    else { dot.removeAttribute("visibility"); dot.setAttribute("cx", x(point)); }
  }
  function rankChange(now, before) {
    if (missing(now)) return "";
    if (missing(before)) return "new";
    return now < before ? "↑" + (before - now) : now > before ? "↓" + (now - before) : "=";
  }


  window.scorehouse = {
    D: D, PAGE_SIZE: PAGE_SIZE, el: el, svg: svg, missing: missing, fmt: fmt, readState: readState,
    writeState: writeState, markReady: markReady, sortIndices: sortIndices, sortableTable: sortableTable,
    whisker: whisker, moveWhisker: moveWhisker, rankChange: rankChange
  };
})();
