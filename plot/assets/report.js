// report.js draws the interactive charts of aiperf-go's report.html with
// Chart.js, from the runs the page embeds as window.AIPERF_DATA:
//   - "tradeoff": output token throughput against the chosen latency
//     metric and statistic, each group's runs joined in order of load and
//     labelled with it, and each group's Pareto frontier dashed;
//   - "sweep": the chosen metric and statistic against the load.
// Hovering a point shows its run in #aiperf-tooltip; clicking a legend
// entry hides that group on every chart; #aiperf-metric and #aiperf-stat
// switch what is plotted. window.aiperfReport exposes the charts for the
// report's browser test.
(function () {
  'use strict';
  const D = window.AIPERF_DATA;
  const state = { metric: D.metrics[0].tag, stat: D.stats[0], hidden: new Set() };
  const charts = {};

  const metricName = () => D.metrics.find((m) => m.tag === state.metric).name;
  const value = (run) => {
    const s = run.stats[state.metric];
    return s && s[state.stat] != null ? s[state.stat] : null;
  };
  const fmt = (v) => (v == null ? 'n/a' : Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(3));

  // bySweep orders a group's runs along its line: by load (unknown last),
  // then by x, then by run id.
  function bySweep(a, b) {
    if ((a.run.sweep == null) !== (b.run.sweep == null)) return a.run.sweep == null ? 1 : -1;
    if (a.run.sweep !== b.run.sweep) return a.run.sweep - b.run.sweep;
    if (a.x !== b.x) return a.x - b.x;
    return a.run.id < b.run.id ? -1 : 1;
  }

  // frontier returns the points no other point beats: lower x (a latency)
  // and higher y (a throughput). Failed and degraded runs never count.
  function frontier(points) {
    const ps = points.filter((p) => !p.run.marked).sort((a, b) => a.x - b.x || b.y - a.y);
    const out = [];
    let best = -Infinity;
    for (const p of ps) {
      if (p.y > best) {
        out.push({ x: p.x, y: p.y });
        best = p.y;
      }
    }
    return out;
  }

  // points returns a group's points for chart kind, in sweep order.
  function points(kind, group) {
    const out = [];
    for (const run of D.runs) {
      if (run.group !== group) continue;
      const p = kind === 'tradeoff' ? { x: value(run), y: run.throughput, run } : { x: run.sweep, y: value(run), run };
      if (p.x != null && p.y != null) out.push(p);
    }
    return out.sort(bySweep);
  }

  function datasets(kind) {
    const sets = [];
    for (const g of D.groups) {
      const pts = points(kind, g.name);
      sets.push({
        kind: 'runs', group: g.name, label: g.name, data: pts, showLine: true,
        borderColor: g.color, backgroundColor: g.color, borderWidth: 1.5,
        pointStyle: (c) => (c.raw && c.raw.run.marked ? 'crossRot' : 'circle'),
        pointRadius: (c) => (c.raw && c.raw.run.marked ? 7 : 4),
        pointBorderWidth: (c) => (c.raw && c.raw.run.marked ? 3 : 1),
        pointHitRadius: 8, hidden: state.hidden.has(g.name),
      });
      if (kind === 'tradeoff') {
        sets.push({
          kind: 'frontier', group: g.name, label: g.name + ' (Pareto frontier)', data: frontier(pts), showLine: true,
          borderColor: g.color, backgroundColor: g.color, borderWidth: 3, borderDash: [7, 4],
          pointRadius: 0, pointHitRadius: 0, hidden: state.hidden.has(g.name),
        });
      }
    }
    return sets;
  }

  function axisTitles(kind) {
    const metric = metricName() + ' ' + state.stat + ' (ms)';
    return kind === 'tradeoff' ? [metric, 'output token throughput (tokens/s)'] : [D.sweepAxis, metric];
  }

  // describe lists what the tooltip says of a run.
  function describe(run) {
    const lines = [run.id, run.group];
    if (run.load) lines.push(run.load);
    lines.push(metricName() + ' ' + state.stat + ': ' + fmt(value(run)) + ' ms');
    lines.push('output token throughput: ' + fmt(run.throughput) + ' tokens/s');
    if (run.validity !== 'ok') lines.push('⚠ ' + run.validity);
    return lines;
  }

  function tooltip(context) {
    const { chart, tooltip: tip } = context;
    const el = document.getElementById('aiperf-tooltip');
    const pts = (tip.dataPoints || []).filter((dp) => dp.raw && dp.raw.run);
    if (tip.opacity === 0 || pts.length === 0) {
      el.hidden = true;
      return;
    }
    el.replaceChildren();
    pts.forEach((dp, i) => {
      describe(dp.raw.run).forEach((line, j) => {
        const div = document.createElement('div');
        div.textContent = line;
        if (j === 0) div.className = 'tip-run';
        if (i > 0 && j === 0) div.style.marginTop = '0.4em';
        el.appendChild(div);
      });
    });
    const r = chart.canvas.getBoundingClientRect();
    el.hidden = false;
    const left = window.scrollX + r.left + tip.caretX + 14;
    el.style.left = Math.min(left, window.scrollX + document.documentElement.clientWidth - el.offsetWidth - 8) + 'px';
    el.style.top = window.scrollY + r.top + tip.caretY + 14 + 'px';
  }

  // pointLabels writes each point's load ("c=8") next to it.
  const pointLabels = {
    id: 'aiperfPointLabels',
    afterDatasetsDraw(chart) {
      const ctx = chart.ctx;
      ctx.save();
      ctx.font = '11px sans-serif';
      chart.data.datasets.forEach((ds, i) => {
        if (ds.kind !== 'runs' || !chart.isDatasetVisible(i)) return;
        ctx.fillStyle = ds.borderColor;
        chart.getDatasetMeta(i).data.forEach((el, j) => {
          const label = ds.data[j] && ds.data[j].run.label;
          if (label) ctx.fillText(label, el.x + 6, el.y - 7);
        });
      });
      ctx.restore();
    },
  };

  // toggleGroup hides or shows a group on every chart.
  function toggleGroup(group) {
    if (state.hidden.has(group)) state.hidden.delete(group);
    else state.hidden.add(group);
    for (const chart of Object.values(charts)) {
      chart.data.datasets.forEach((ds, i) => {
        if (ds.group === group) chart.setDatasetVisibility(i, !state.hidden.has(group));
      });
      chart.update();
    }
  }

  const legendPosition = (width) => (width < 640 ? 'bottom' : 'right');

  function makeChart(kind) {
    const canvas = document.getElementById('aiperf-chart-' + kind);
    const [xTitle, yTitle] = axisTitles(kind);
    charts[kind] = new Chart(canvas, {
      type: 'scatter',
      data: { datasets: datasets(kind) },
      plugins: [pointLabels],
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: 'nearest', intersect: true },
        onResize: (chart, size) => {
          chart.options.plugins.legend.position = legendPosition(size.width);
        },
        scales: {
          x: { title: { display: true, text: xTitle }, grace: '5%' },
          y: { title: { display: true, text: yTitle }, grace: '5%' },
        },
        plugins: {
          legend: {
            position: legendPosition(canvas.parentElement.clientWidth),
            labels: { filter: (item, data) => data.datasets[item.datasetIndex].kind === 'runs', usePointStyle: true, pointStyle: 'circle', boxWidth: 8, boxHeight: 8 },
            onClick: (e, item, legend) => toggleGroup(legend.chart.data.datasets[item.datasetIndex].group),
          },
          tooltip: { enabled: false, external: tooltip, filter: (item) => item.dataset.kind === 'runs' },
        },
      },
    });
  }

  function redraw() {
    for (const [kind, chart] of Object.entries(charts)) {
      const fresh = datasets(kind);
      chart.data.datasets.forEach((ds, i) => {
        ds.data = fresh[i].data;
      });
      const [xTitle, yTitle] = axisTitles(kind);
      chart.options.scales.x.title.text = xTitle;
      chart.options.scales.y.title.text = yTitle;
      chart.update();
    }
  }

  function select(id, options, current, set) {
    const el = document.getElementById(id);
    for (const [v, label] of options) el.add(new Option(label, v, false, v === current));
    el.addEventListener('change', () => {
      set(el.value);
      redraw();
    });
  }

  if (D.runs.length === 0 || !window.Chart) return;
  select('aiperf-metric', D.metrics.map((m) => [m.tag, m.name]), state.metric, (v) => { state.metric = v; });
  select('aiperf-stat', D.stats.map((s) => [s, s]), state.stat, (v) => { state.stat = v; });
  makeChart('tradeoff');
  makeChart('sweep');
  window.aiperfReport = { charts, state };
})();
