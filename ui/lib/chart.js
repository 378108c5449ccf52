const NS = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs) => {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
};

/** A small line chart of `[{ t: ms, v: number }]`, with its name as the accessible label. */
export function lineChart(label, points, { width = 560, height = 140 } = {}) {
  const chart = svg('svg', {
    class: 'chart',
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': `${label}: ${points.length} points${points.length ? `, last ${points.at(-1).v}` : ''}`,
  });
  if (points.length === 0) return chart;
  const ts = points.map((p) => p.t);
  const vs = points.map((p) => p.v);
  const [t0, t1, v0, v1] = [Math.min(...ts), Math.max(...ts), Math.min(...vs), Math.max(...vs)];
  const x = (t) => 40 + ((t - t0) / (t1 - t0 || 1)) * (width - 50);
  const y = (v) => height - 20 - ((v - v0) / (v1 - v0 || 1)) * (height - 30);
  chart.append(svg('polyline', { points: points.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(' ') }));
  for (const [v, at] of [
    [v1, y(v1)],
    [v0, y(v0)],
  ]) {
    const text = svg('text', { x: 2, y: at + 3 });
    text.textContent = Number(v.toPrecision(4));
    chart.append(text);
  }
  return chart;
}
