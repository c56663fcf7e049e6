/**
 * The report's page: one self-contained HTML file (no network fetch) holding ECharts (inlined:
 * one library gives the timeline's custom series, stacked bars, the heatmap and histograms, and
 * draws thousands of slices on a canvas), the report's data as JSON, and the drawing code below.
 * `drawReport` runs in the browser: it is shipped as its source text, so it must not use anything
 * outside its own body but the page's `echarts` and the data.
 */
import type { ReportData } from './report-data.js';

/** The little of the DOM the drawing code uses (the project compiles without the DOM's types). */
interface ElementLike {
  innerHTML: string;
  textContent: string | null;
  className: string;
  appendChild(child: ElementLike): void;
  querySelector(selector: string): ElementLike | null;
}
declare const document: { getElementById(id: string): ElementLike | null; createElement(tag: string): ElementLike };
declare const window: object;

interface ChartLike {
  setOption(option: unknown): void;
  getOption(): { series?: { data?: unknown[] }[] };
}
interface EChartsLike {
  init(element: ElementLike, theme?: string | null, options?: { renderer?: string }): ChartLike;
  graphic: { clipRectByRect(a: unknown, b: unknown): unknown };
}

/** Draws every chart the data has; records them on window.tsmpiReport for checks. */
function drawReport(data: ReportData, echarts: EChartsLike): void {
  const root = document.getElementById('charts')!;
  const drawn: { id: string; points: number }[] = [];
  const palette: Record<string, string> = { compute: '#9bbf85', wait: '#e39a6b', round: '#b59ed8', call: '#6b9fd8', virtual: '#c8c8c8', message: '#888', task: '#7fc3b8', balance: '#d8c36b' };
  function section(id: string, title: string, text: string, height: number): ElementLike {
    const box = document.createElement('section');
    box.innerHTML = `<h2></h2><p class="what"></p><div class="chart" id="${id}" style="height:${height}px"></div>`;
    box.querySelector('h2')!.textContent = title;
    box.querySelector('p')!.textContent = text;
    root.appendChild(box);
    return box.querySelector('.chart')!;
  }
  function note(title: string, text: string): void {
    const box = document.createElement('section');
    box.innerHTML = '<h2></h2><p class="note"></p>';
    box.querySelector('h2')!.textContent = title;
    box.querySelector('p')!.textContent = text;
    root.appendChild(box);
  }
  function chart(id: string, element: ElementLike, option: unknown, points: number): void {
    const c = echarts.init(element, null, { renderer: 'canvas' });
    c.setOption(option);
    drawn.push({ id, points });
  }
  const unit = data.simulated ? 'ms of virtual time' : 'ms';

  if (data.slices.length > 0) {
    const height = Math.min(900, 80 + data.tracks.length * 26);
    const el = section('timeline', 'Timeline', `Each rank's calls over time (${unit}); drag or scroll to zoom. Colours: calls, waits, collective rounds, compute.`, height);
    const items = data.slices.map((s) => ({ value: [s.track, s.start, s.end, s.name], itemStyle: { color: palette[s.category] ?? palette.call } }));
    chart(
      'timeline',
      el,
      {
        animation: false,
        tooltip: { formatter: (p: { value: [number, number, number, string] }) => `${data.tracks[p.value[0]]}<br>${p.value[3]}: ${(p.value[2] - p.value[1]).toFixed(3)} ms at ${p.value[1].toFixed(3)}` },
        grid: { left: 140, right: 30, top: 20, bottom: 60 },
        dataZoom: [{ type: 'slider', filterMode: 'weakFilter', bottom: 10 }, { type: 'inside', filterMode: 'weakFilter' }],
        xAxis: { type: 'value', name: unit, nameLocation: 'middle', nameGap: 25, scale: true },
        yAxis: { type: 'category', data: data.tracks, inverse: true },
        series: [
          {
            type: 'custom',
            // Everything at once (not progressively over frames): the page is complete when loaded.
            progressive: 0,
            encode: { x: [1, 2], y: 0 },
            data: items,
            renderItem: (
              params: { coordSys: { x: number; y: number; width: number; height: number } },
              api: { value(i: number): number; coord(p: [number, number]): [number, number]; size(p: [number, number]): [number, number]; style(): unknown },
            ) => {
              const track = api.value(0);
              const start = api.coord([api.value(1), track]);
              const end = api.coord([api.value(2), track]);
              const h = api.size([0, 1])[1] * 0.7;
              const shape = echarts.graphic.clipRectByRect(
                { x: start[0], y: start[1] - h / 2, width: Math.max(0.5, end[0] - start[0]), height: h },
                { x: params.coordSys.x, y: params.coordSys.y, width: params.coordSys.width, height: params.coordSys.height },
              );
              return shape ? { type: 'rect', transition: ['shape'], shape, style: api.style() } : undefined;
            },
          },
        ],
      },
      items.length,
    );
  } else {
    note('Timeline', 'This report comes from a profile: record the run with --trace for its timeline.');
  }

  if (data.breakdown.length > 0) {
    const el = section('breakdown', 'Where each rank\'s time went', data.simulated ? `The simulator's account of each rank's virtual time (${unit}): compute, message overhead, blocked.` : `Per rank (${unit}): compute between calls, time inside communication calls, time in waits.`, Math.min(600, 120 + data.breakdown.length * 18));
    const ranks = data.breakdown.map((b) => `rank ${b.rank}`);
    chart(
      'breakdown',
      el,
      {
        animation: false,
        tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
        legend: { top: 0 },
        grid: { left: 90, right: 30, top: 30, bottom: 30 },
        xAxis: { type: 'value', name: unit },
        yAxis: { type: 'category', data: ranks, inverse: true },
        series: [
          { name: 'compute', type: 'bar', stack: 't', data: data.breakdown.map((b) => b.compute), itemStyle: { color: palette.compute } },
          { name: data.simulated ? 'overhead' : 'communication', type: 'bar', stack: 't', data: data.breakdown.map((b) => b.communication), itemStyle: { color: palette.call } },
          { name: data.simulated ? 'blocked' : 'waiting', type: 'bar', stack: 't', data: data.breakdown.map((b) => b.waiting), itemStyle: { color: palette.wait } },
        ],
      },
      data.breakdown.length,
    );
  }

  if (data.matrix !== undefined) {
    const n = data.matrix.length;
    const cells: [number, number, number][] = [];
    let max = 0;
    data.matrix.forEach((row, from) =>
      row.forEach((bytes, to) => {
        if (bytes > 0) cells.push([to, from, bytes]);
        max = Math.max(max, bytes);
      }),
    );
    const el = section('matrix', 'Communication matrix', 'Bytes sent from each rank (row) to each rank (column).', Math.min(700, 160 + n * 22));
    const labels = Array.from({ length: n }, (_, i) => String(i));
    chart(
      'matrix',
      el,
      {
        animation: false,
        tooltip: { formatter: (p: { value: [number, number, number] }) => `rank ${p.value[1]} to rank ${p.value[0]}: ${p.value[2]} bytes` },
        grid: { left: 60, right: 100, top: 20, bottom: 50 },
        xAxis: { type: 'category', data: labels, name: 'to', nameLocation: 'middle', nameGap: 30 },
        yAxis: { type: 'category', data: labels, name: 'from', inverse: true },
        visualMap: { min: 0, max: Math.max(1, max), calculable: true, orient: 'vertical', right: 10, top: 'middle' },
        series: [{ type: 'heatmap', data: cells, progressive: 0 }],
      },
      cells.length,
    );
  }

  if (data.sizes.length > 0) {
    const el = section('sizes', 'Message sizes', 'Messages by size (powers of two: each bar counts sizes from its label up to the next).', 320);
    chart(
      'sizes',
      el,
      {
        animation: false,
        tooltip: { trigger: 'axis' },
        grid: { left: 60, right: 30, top: 20, bottom: 40 },
        xAxis: { type: 'category', data: data.sizes.map((s) => s.bin) },
        yAxis: { type: 'value', name: 'messages' },
        series: [{ type: 'bar', data: data.sizes.map((s) => s.count), itemStyle: { color: palette.call } }],
      },
      data.sizes.length,
    );
  }

  if (data.calls.length > 0) {
    const top = data.calls.slice(0, 20);
    const el = section('calls', 'Time per call', `Time inside each kind of call, all ranks together (${unit}).`, 100 + top.length * 24);
    chart(
      'calls',
      el,
      {
        animation: false,
        tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
        grid: { left: 140, right: 30, top: 20, bottom: 30 },
        xAxis: { type: 'value', name: unit },
        yAxis: { type: 'category', data: top.map((c) => `${c.name} (${c.count})`), inverse: true },
        series: [{ type: 'bar', data: top.map((c) => c.ms), itemStyle: { color: palette.call } }],
      },
      top.length,
    );
  }
  if (data.rails.length > 0) {
    const el = section('rails', 'Rail utilisation', `Each rail's rate over time, all ranks' segments together (MB/s against ${unit}).`, 320);
    chart(
      'rails',
      el,
      {
        animation: false,
        tooltip: { trigger: 'axis' },
        legend: { top: 0 },
        grid: { left: 70, right: 30, top: 30, bottom: 40 },
        xAxis: { type: 'value', name: unit, nameLocation: 'middle', nameGap: 25, scale: true },
        yAxis: { type: 'value', name: 'MB/s' },
        series: data.rails.map((r) => ({ name: `rail ${r.rail}`, type: 'line', showSymbol: false, data: r.points })),
      },
      data.rails.reduce((n, r) => n + r.points.length, 0),
    );
  }
  if (data.tasks.length > 0) {
    const el = section('tasks', 'Task pool', `Tasks each rank ran, and the time it spent in them (${unit}).`, Math.min(600, 120 + data.tasks.length * 18));
    chart(
      'tasks',
      el,
      {
        animation: false,
        tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
        legend: { bottom: 0 },
        grid: { left: 90, right: 60, top: 40, bottom: 50 },
        xAxis: [{ type: 'value', name: unit }, { type: 'value', name: 'tasks', position: 'top' }],
        yAxis: { type: 'category', data: data.tasks.map((t) => `rank ${t.rank}`), inverse: true },
        series: [
          { name: 'time in tasks', type: 'bar', data: data.tasks.map((t) => t.ms), itemStyle: { color: palette.compute } },
          { name: 'tasks', type: 'bar', xAxisIndex: 1, data: data.tasks.map((t) => t.count), itemStyle: { color: palette.call } },
        ],
      },
      data.tasks.length,
    );
  }
  if (data.balance.length > 0) {
    const el = section('balance', 'Diffusion balancer', 'The ranks\' load before each rebalancing step: the lowest, the mean and the highest.', 320);
    chart(
      'balance',
      el,
      {
        animation: false,
        tooltip: { trigger: 'axis' },
        legend: { top: 0 },
        grid: { left: 70, right: 30, top: 30, bottom: 40 },
        xAxis: { type: 'category', name: 'step', data: data.balance.map((b) => String(b.step)) },
        yAxis: { type: 'value', name: 'load' },
        series: [
          { name: 'max', type: 'line', data: data.balance.map((b) => b.max) },
          { name: 'mean', type: 'line', data: data.balance.map((b) => b.mean) },
          { name: 'min', type: 'line', data: data.balance.map((b) => b.min) },
        ],
      },
      data.balance.length,
    );
  }
  if (data.rails.length === 0 && data.tasks.length === 0 && data.balance.length === 0) {
    note('Rails, task pools and balancers', 'This run used none of them (or was not traced): rail utilisation, task-pool and balancer charts appear when it does.');
  }
  for (const text of data.notes) {
    const p = document.createElement('p');
    p.className = 'note';
    p.textContent = text;
    root.appendChild(p);
  }
  (window as { tsmpiReport?: unknown }).tsmpiReport = { charts: drawn };
}

/** The whole page: `echartsSource` is the library's minified build, inlined. */
export function reportHtml(data: ReportData, echartsSource: string): string {
  // </script> inside the JSON or library would end the script element early.
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  const library = echartsSource.replace(/<\/script/gi, '<\\/script');
  const heading = data.title.replace(/[<&>]/g, (c) => ({ '<': '&lt;', '&': '&amp;', '>': '&gt;' })[c]!);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tsmpi report: ${heading}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin: 28px 0 4px; }
.what, .note { color: #555; margin: 0 0 8px; } .chart { width: 100%; min-width: 600px; }
</style></head>
<body><h1>tsmpi report: ${heading}</h1>
<p class="what">${data.ranks} ranks, ${data.source === 'trace' ? (data.simulated ? 'a simulated run\'s timeline' : 'a run\'s timeline') : 'a run\'s profile'}.</p>
<div id="charts"></div>
<script>${library}</script>
<script>(${drawReport.toString()})(${json}, window.echarts);</script>
</body></html>
`;
}
