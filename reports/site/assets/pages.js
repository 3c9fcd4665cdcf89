/* scorehouse leaderboard site, 4 of 4: the index and system pages, and which page to draw. */
(function (S) {
  "use strict";
  var D = S.D, el = S.el, svg = S.svg, missing = S.missing, fmt = S.fmt, readState = S.readState, writeState = S.writeState, markReady = S.markReady, sortIndices = S.sortIndices, sortableTable = S.sortableTable, whisker = S.whisker, rankChange = S.rankChange, PAGE_SIZE = S.PAGE_SIZE;
  var benchmarkPage = S.benchmarkPage;

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
})(window.scorehouse);
