/* report.js — dbgauge's glue for its HTML reports: draws each <figure class="chart"> from its
 * inline JSON with uPlot (warm-up shading, labels on points, hover legend) and records, on
 * <html>, script errors (data-errors), per-chart drawn pixels (data-pixels) and y tick labels
 * (data-yticks) for the tests.
 * It loads nothing from the network and never evaluates text from the data. */
(function () {
  "use strict";
  var root = document.documentElement;
  /* The page's first script defines dgFail (errors, blocked loads); alone, keep them here. */
  var fail = window.dgFail || function (msg) { root.setAttribute("data-errors", (root.getAttribute("data-errors") || "") + " | " + msg); };
  var palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
                 "#17becf", "#7f7f7f", "#bcbd22"];
  function rgb(hex) { return [1, 3, 5].map(function (i) { return parseInt(hex.substr(i, 2), 16); }); }
  function fmt(v) {
    if (v == null || !isFinite(v)) return "-";
    var a = Math.abs(v), d = a >= 1000 || a === 0 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : 4;
    return v.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
  }
  function fmtWhole(v) { return v == null || !isFinite(v) ? "-" : v.toLocaleString("en-US", { maximumFractionDigits: 0 }); }
  function nines(x) { if (x >= 6) return "max"; var p = 100 * (1 - Math.pow(10, -x)); return +p.toPrecision(6) + "%"; }
  /* Counts pixels of the plot area that carry a series colour: proof the data was drawn. */
  function seriesPixels(u, cols) {
    var b = u.bbox, img = u.ctx.getImageData(b.left, b.top, Math.max(1, b.width), Math.max(1, b.height)).data, n = 0;
    for (var i = 0; i < img.length; i += 4) {
      if (img[i + 3] < 90) continue;
      for (var k = 0; k < cols.length; k++) {
        var c = cols[k];
        if (Math.abs(img[i] - c[0]) + Math.abs(img[i + 1] - c[1]) + Math.abs(img[i + 2] - c[2]) < 60) { n++; break; }
      }
    }
    return n;
  }
  var counts = {}, yticks = {};
  /* y steps of 1, 2, 5 x 10^k from 1 up: a chart of counts never has a tick between two whole
     numbers */
  var wholeIncrs = [];
  for (var e = 1; e <= 1e15; e *= 10) wholeIncrs.push(e, 2 * e, 5 * e);
  /* size: {width, height} for the one-chart view (then the legend names the series, no values) */
  function draw(fig, size) {
    var d = JSON.parse(fig.querySelector("script.chart-data").textContent);
    var el = fig.querySelector(".plot");
    var data = [d.x], cols = [];
    function xtext(v) {
      if (v == null) return "-";
      if (d.x_text) { var i = d.x.indexOf(v); if (i >= 0) return d.x_text[i]; }
      return d.x_kind === "nines" ? nines(v) : fmt(v);
    }
    var series = [{ label: d.x_label, value: function (u, v) { return xtext(v); } }];
    d.series.forEach(function (s, k) {
      var col = palette[k % palette.length];
      if (!s.hidden) cols.push(rgb(col));
      data.push(s.values);
      var o = { label: s.name + (s.unit ? " (" + s.unit + ")" : ""), stroke: col, width: 2, show: !s.hidden, spanGaps: false,
                value: function (u, v) { return fmt(v); } };
      if (d.bars) { /* grouped: series k of n takes the k-th slice of a 0.7-wide group around x */
        var n = d.series.length, w = 0.7 / n;
        o.fill = col + "bb"; o.points = { show: false };
        o.paths = uPlot.paths.bars({ size: [1, 120], disp: {
          x0: { unit: 1, values: function (u) { return u.data[0].map(function (x) { return x - 0.35 + k * w; }); } },
          size: { unit: 1, values: function (u) { return u.data[0].map(function () { return w; }); } } } });
      }
      series.push(o);
    });
    /* A run's outages and faults: spans behind the series, clipped to the plot: "shade" a red band (an outage), "mark" a
       dashed line at its start with a light band to its end (a fault); labels stacked down
       from the top so that neighbours do not overwrite each other. The colours are none of
       the palette's, so the drawn-pixel count stays the series' own. */
    function drawSpans(u) {
      var c = u.ctx, b = u.bbox, px = devicePixelRatio, row = 0;
      c.save(); c.beginPath(); c.rect(b.left, b.top, b.width, b.height); c.clip();
      c.font = Math.round(11 * px) + "px sans-serif";
      (d.spans || []).forEach(function (sp) {
        var x0 = u.valToPos(sp.from, "x", true), x1 = u.valToPos(sp.to, "x", true);
        if (sp.kind === "mark") {
          c.fillStyle = "rgba(60,60,60,0.07)"; c.fillRect(x0, b.top, Math.max(1, x1 - x0), b.height);
          c.strokeStyle = "#333"; c.lineWidth = 1.5 * px; c.setLineDash([5 * px, 3 * px]);
          c.beginPath(); c.moveTo(x0, b.top); c.lineTo(x0, b.top + b.height); c.stroke(); c.setLineDash([]);
          c.fillStyle = "#333";
        } else {
          c.fillStyle = "rgba(214,39,40,0.13)"; c.fillRect(x0, b.top, Math.max(1, x1 - x0), b.height);
          c.fillStyle = "#900";
        }
        row = (row % 4) + 1;
        c.fillText(sp.label, x0 + 4, b.top + (14 + 14 * row) * px);
      });
      c.restore();
    }
    var hooks = {
      drawClear: [function (u) {
        if (d.spans) drawSpans(u);
        if (!d.shade) return;
        var c = u.ctx, x0 = u.valToPos(d.shade.from, "x", true), x1 = u.valToPos(d.shade.to, "x", true);
        c.save(); c.fillStyle = "rgba(120,120,120,0.14)";
        c.fillRect(x0, u.bbox.top, x1 - x0, u.bbox.height);
        c.fillStyle = "#666"; c.font = Math.round(11 * devicePixelRatio) + "px sans-serif";
        c.fillText(d.shade.label, x0 + 4, u.bbox.top + 14 * devicePixelRatio); c.restore();
      }],
      draw: [function (u) {
        /* each series' labels above its own points (bars: above its slice of the group);
           smaller text when several series carry labels, none while a series is hidden */
        var labelled = d.series.filter(function (s) { return s.labels; }).length;
        if (labelled) {
          var c = u.ctx; c.save(); c.fillStyle = "#222"; c.textAlign = "center";
          c.font = "bold " + Math.round((labelled > 1 ? 10 : 12) * devicePixelRatio) + "px sans-serif";
          d.series.forEach(function (s, k) {
            if (!s.labels || !u.series[k + 1].show) return;
            var dx = d.bars ? -0.35 + (k + 0.5) * 0.7 / d.series.length : 0;
            s.labels.forEach(function (t, i) {
              var y = s.values[i];
              if (t == null || y == null) return;
              c.fillText(t, u.valToPos(d.x[i] + dx, "x", true), u.valToPos(y, "y", true) - 8 * devicePixelRatio);
            });
          });
          c.restore();
        }
        counts[d.id] = seriesPixels(u, cols);
        root.setAttribute("data-pixels", JSON.stringify(counts));
      }]
    };
    var xs = d.x_kind === "nines" ? { time: false } : { time: false };
    if (d.bars && d.x.length) {
      var lo = Math.min.apply(null, d.x), hi = Math.max.apply(null, d.x), pad = d.x.length > 1 ? (hi - lo) / (d.x.length - 1) / 2 : 1;
      xs.range = [lo - pad, hi + pad];
    }
    /* counts (every value whole, as commits or errors per second): whole ticks only */
    var whole = !d.log_y && d.series.every(function (s) { return s.values.every(function (v) { return v == null || Number.isInteger(v); }); });
    var yr = d.log_y ? undefined : function (u, min, max) {
      var hi = max > 0 ? max * 1.15 : 1;
      return [Math.min(0, min), whole ? Math.max(1, Math.ceil(hi)) : hi];
    };
    /* the axis as wide as its longest tick label and the title beside it, so the title is never
       drawn over a tick ("1,234,567" is wider than the 70 px that fit "12.5") */
    function ySize(u, values) {
      if (!values) return 70;
      var c = u.ctx, w = 0;
      c.save(); c.font = Math.round(12 * devicePixelRatio) + "px sans-serif";
      values.forEach(function (t) { w = Math.max(w, c.measureText(String(t)).width / devicePixelRatio); });
      c.restore();
      return Math.max(50, Math.ceil(w) + 38);
    }
    var opts = {
      width: size ? size.width : Math.max(320, el.clientWidth || 900), height: size ? size.height : 300,
      scales: { x: xs, y: d.log_y ? { distr: 3 } : { range: yr } },
      series: series, hooks: hooks,
      axes: [{ label: d.x_label, values: d.x_kind === "nines" || d.x_text ? function (u, v) { return v.map(xtext); } : undefined,
               splits: d.bars || (d.x_text && d.x_kind !== "nines") ? function () { return d.x; } : undefined,
               incrs: d.x_kind === "linear" && !d.x_text && d.x.every(Number.isInteger) ? [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200] : undefined },
             { label: d.y_label, incrs: whole ? wholeIncrs : undefined, size: ySize,
               values: function (u, v) { var t = v.map(whole ? fmtWhole : fmt); yticks[d.id] = t; root.setAttribute("data-yticks", JSON.stringify(yticks)); return t; } }],
      legend: { live: !size }, cursor: { drag: { x: true, y: false } }
    };
    if (d.x_kind === "nines") opts.axes[0].splits = function () { return d.x.filter(function (x) { return Math.abs(x - Math.round(x)) < 1e-9; }); };
    return new uPlot(opts, data, el);
  }
  /* "#chart=ID" (ID: a <figure class="chart">'s id) shows that one chart alone, filling the
     window, on white, without its table: the page a screenshot is taken of (scripts/gallery.sh).
     The figure replaces the body's content. The plot gets the window less the caption and legend
     around it, again at each resize (headless Chromium sizes its viewport after the load). */
  function one(id) {
    var fig = document.getElementById(id);
    if (!fig || !fig.matches("figure.chart")) { fail("#chart=" + id + ": no such chart"); root.setAttribute("data-charts", "0/0"); return; }
    root.classList.add("one-chart");
    document.body.textContent = "";
    document.body.appendChild(fig);
    var table = fig.querySelector("details");
    if (table) table.remove();
    var u = draw(fig, { width: 800, height: 400 });
    function fit() {
      var around = fig.offsetHeight - u.height; /* caption, legend: what is not the plot */
      u.setSize({ width: Math.max(320, window.innerWidth - 48), height: Math.max(200, window.innerHeight - 32 - around) });
    }
    fit();
    window.addEventListener("resize", fit);
    root.setAttribute("data-charts", "1/1");
  }
  function all() {
    var m = /^#chart=(.+)$/.exec(location.hash);
    if (m) { try { one(decodeURIComponent(m[1])); } catch (e) { fail("chart " + m[1] + ": " + e.message); } setTimeout(function () { root.setAttribute("data-ready", "1"); }, 50); return; }
    var figs = document.querySelectorAll("figure.chart"), drawn = 0;
    for (var i = 0; i < figs.length; i++) {
      try { draw(figs[i]); drawn++; } catch (e) { fail("chart " + figs[i].id + ": " + e.message); }
    }
    root.setAttribute("data-charts", figs.length + "/" + drawn);
    setTimeout(function () { root.setAttribute("data-ready", "1"); }, 50);
  }
  /* The live page (dbgauge --live) draws again each time it swaps in the run's new section. */
  window.dgDrawCharts = all;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", all); else all();
})();
