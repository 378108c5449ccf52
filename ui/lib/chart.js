const NS = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs, text) => {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
};
const clockTime = (ms) =>
  new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/**
 * A small line chart of `[{ t: ms, v: number }]`, with its name as the accessible label: the value range on the left,
 * the time range along the bottom, a single point drawn as a dot.
 */
export function lineChart(label, points, { width = 560, height = 150, unit } = {}) {
  const chart = svg('svg', {
    class: 'chart',
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label':
      `${label}: ${points.length} ` +
      `points${points.length ? `, last ${points.at(-1).v}${unit ? ` ${unit}` : ''}` : ''}`,
  });
  if (points.length === 0) return chart;
  const ts = points.map((p) => p.t);
  const vs = points.map((p) => p.v);
  const [t0, t1, v0, v1] = [Math.min(...ts), Math.max(...ts), Math.min(...vs), Math.max(...vs)];
  const [left, right, top, bottom] = [48, width - 8, 8, height - 22];
  const x = (t) => (t1 === t0 ? (left + right) / 2 : left + ((t - t0) / (t1 - t0)) * (right - left));
  const y = (v) => (v1 === v0 ? (top + bottom) / 2 : bottom - ((v - v0) / (v1 - v0)) * (bottom - top));
  chart.append(svg('line', { x1: left, y1: bottom, x2: right, y2: bottom }));
  if (points.length === 1) chart.append(svg('circle', { cx: x(ts[0]), cy: y(vs[0]), r: 3 }));
  else
    chart.append(svg('polyline', { points: points.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(' ') }));
  const values =
    v1 === v0
      ? [[v0, y(v0)]]
      : [
          [v1, y(v1)],
          [v0, y(v0)],
        ];
  for (const [v, at] of values)
    chart.append(svg('text', { x: 2, y: at + 3 }, `${Number(v.toPrecision(4))}${unit ? ` ${unit}` : ''}`));
  chart.append(svg('text', { x: left, y: height - 6 }, clockTime(t0)));
  if (t1 !== t0) chart.append(svg('text', { x: right, y: height - 6, 'text-anchor': 'end' }, clockTime(t1)));
  return chart;
}
