// tusk fabric view (analysis/tusk_analysis/fabric_view.py): draws the topology from the
// page's JSON, colours links by the chosen metric at the slider's frame, plays the frames,
// and highlights the links of a clicked flow or collective step. No network.
// Opened with #selftest it drives itself (slider, click) and records what it saw in
// <body data-*> attributes, for the headless-browser test.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("fabric-data").textContent);
  var SVG = "http://www.w3.org/2000/svg";
  var svg = document.getElementById("fabric");
  var slider = document.getElementById("slider");
  var timeLabel = document.getElementById("time");
  var metricSel = document.getElementById("metric");
  var legend = document.getElementById("legend");
  var playBtn = document.getElementById("play");
  var NAMES = {util: "utilisation", queue: "egress queue (bytes)", pause: "PFC paused fraction"};
  var pos = {};
  var lines = [];
  var frame = 0;
  var timer = null;

  function el(tag, attrs, parent) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (parent) { parent.appendChild(e); }
    return e;
  }

  // White -> yellow -> red, grey for an idle link: a sequential scale from 0 to the metric's
  // full scale (utilisation 1, pause 1, queue the run's largest sample).
  function colour(v, full) {
    if (!(v > 0)) { return "rgb(200,200,200)"; }
    var x = Math.min(1, v / (full || 1));
    var r, g, b;
    if (x < 0.5) { r = 255; g = 255; b = Math.round(200 * (1 - 2 * x)); }
    else { r = 255; g = Math.round(255 * (2 - 2 * x)); b = 0; }
    return "rgb(" + r + "," + g + "," + b + ")";
  }

  function draw() {
    svg.setAttribute("viewBox", "0 0 " + D.width + " " + D.height);
    D.nodes.forEach(function (n) { pos[n.name] = n; });
    var gl = el("g", {}, svg);
    D.edges.forEach(function (e, i) {
      var a = pos[e.a], b = pos[e.b];
      var l = el("line", {x1: a.x, y1: a.y, x2: b.x, y2: b.y, "class": "link",
                          "data-link": e.id, "stroke-width": e.long_haul ? 4 : 2}, gl);
      var t = el("title", {}, l);
      t.textContent = "link " + e.id + ": " + e.a + " – " + e.b + ", " + e.rate_gbps + " Gb/s";
      lines[i] = l;
    });
    var gn = el("g", {}, svg);
    D.nodes.forEach(function (n) {
      if (n.tier === 0) {
        el("circle", {cx: n.x, cy: n.y, r: 4, "class": "host"}, gn);
      } else {
        el("rect", {x: n.x - 7, y: n.y - 7, width: 14, height: 14, "class": "switch"}, gn);
      }
      if (n.tier > 0 || D.nodes.length < 80) {
        var t = el("text", {x: n.x, y: n.tier === 0 ? n.y + 16 : n.y - 11, "text-anchor": "middle",
                            "class": "node"}, gn);
        t.textContent = n.name;
      }
    });
  }

  function paint() {
    var m = metricSel.value;
    var row = D.series[m][frame];
    var full = D.scales[m];
    for (var i = 0; i < lines.length; i++) {
      lines[i].style.stroke = colour(row[i], full);
    }
    var t0 = frame > 0 ? D.times[frame - 1] : 0;
    timeLabel.textContent = "t = " + t0 + " – " + D.times[frame] + " µs (frame " + (frame + 1) +
      " of " + D.times.length + ")";
    legend.textContent = "grey idle · yellow " + fmt(full / 2) + " · red ≥ " + fmt(full) +
      (m === "queue" ? " B" : "");
  }

  function fmt(v) { return Math.abs(v) >= 100 ? Math.round(v).toString() : (+v.toFixed(3)).toString(); }

  function setFrame(f) {
    frame = Math.max(0, Math.min(D.times.length - 1, f));
    slider.value = frame;
    paint();
  }

  function highlight(item, li) {
    var on = !li.classList.contains("on");
    document.querySelectorAll("#lists li.on").forEach(function (x) { x.classList.remove("on"); });
    lines.forEach(function (l) { l.classList.remove("hl"); });
    if (!on) { return 0; }
    li.classList.add("on");
    var want = {};
    item.links.forEach(function (id) { want[id] = true; });
    var n = 0;
    lines.forEach(function (l) {
      if (want[l.getAttribute("data-link")]) { l.classList.add("hl"); n++; }
    });
    // Jump to the frame where it was running.
    if (item.t0 !== null) {
      for (var f = 0; f < D.times.length; f++) {
        if (D.times[f] >= item.t0) { setFrame(f); break; }
      }
    }
    return n;
  }

  function list(id, items) {
    var ul = document.getElementById(id);
    items.forEach(function (item) {
      var li = document.createElement("li");
      li.textContent = item.label;
      li.addEventListener("click", function () { highlight(item, li); });
      ul.appendChild(li);
    });
    if (!items.length) {
      var li = document.createElement("li");
      li.textContent = "none with a known path";
      ul.appendChild(li);
    }
  }

  function play() {
    if (timer) { clearInterval(timer); timer = null; playBtn.textContent = "play"; return; }
    playBtn.textContent = "pause";
    if (frame >= D.times.length - 1) { setFrame(0); }
    timer = setInterval(function () {
      if (frame >= D.times.length - 1) { play(); return; }
      setFrame(frame + 1);
    }, 120);
  }

  Object.keys(D.series).forEach(function (m) {
    var o = document.createElement("option");
    o.value = m;
    o.textContent = NAMES[m] || m;
    metricSel.appendChild(o);
  });
  slider.max = D.times.length - 1;
  slider.addEventListener("input", function () { setFrame(+slider.value); });
  metricSel.addEventListener("change", paint);
  playBtn.addEventListener("click", play);
  draw();
  list("flows", D.flows);
  list("steps", D.steps);
  setFrame(0);
  document.body.setAttribute("data-fabric-ready", "true");
  document.body.setAttribute("data-links", String(lines.length));

  if (location.hash === "#selftest") {
    var colours = function () { return lines.map(function (l) { return l.style.stroke; }).join(";"); };
    var before = colours();
    // The busiest frame by the metric shown.
    var m = metricSel.value, best = 0, bestSum = -1;
    D.series[m].forEach(function (row, f) {
      var s = row.reduce(function (a, b) { return a + b; }, 0);
      if (s > bestSum) { bestSum = s; best = f; }
    });
    var idle = D.series[m].findIndex(function (row) { return row.every(function (v) { return !(v > 0); }); });
    slider.value = best === 0 ? D.times.length - 1 : best;
    slider.dispatchEvent(new Event("input"));
    var after = colours();
    document.body.setAttribute("data-slider-frame", String(frame));
    document.body.setAttribute("data-colours-changed", String(before !== after));
    document.body.setAttribute("data-idle-frame", String(idle));
    // Play one step: the frame advances.
    var f0 = frame === D.times.length - 1 ? 0 : frame;
    setFrame(f0);
    playBtn.click();
    setTimeout(function () {
      document.body.setAttribute("data-played", String(frame > f0));
      if (timer) { playBtn.click(); }
      var first = document.querySelector("#flows li");
      if (first && D.flows.length) {
        first.dispatchEvent(new MouseEvent("click", {bubbles: true}));
        document.body.setAttribute("data-highlighted",
          String(document.querySelectorAll("line.hl").length));
        document.body.setAttribute("data-highlighted-ids", Array.prototype.map.call(
          document.querySelectorAll("line.hl"), function (l) { return l.getAttribute("data-link"); }).join(","));
      }
      document.body.setAttribute("data-selftest", "done");
    }, 400);
  }
})();
