// `node bench/compare.js <new results.json> <previous: results.json, or a text file holding a printed table>`:
// the table of docs/performance.md, each figure's new median, spread and verdict beside the previous run's.
import { readFileSync } from 'node:fs';
import { formatSpread, formatValue } from './lib/report.js';

const [latestPath, previousPath] = process.argv.slice(2);
if (!latestPath || !previousPath) {
  process.stderr.write('usage: node bench/compare.js <new results.json> <previous results.json or printed table>\n');
  process.exit(2);
}

/** The previous run by figure id: `{ value, ratio, verdict }` as printed. */
function previousRun(path) {
  const text = readFileSync(path, 'utf8');
  const byId = new Map();
  if (text.trimStart().startsWith('{')) {
    for (const row of JSON.parse(text).figures)
      byId.set(row.id, {
        value: formatValue(row.value, row.unit),
        ratio: row.ratio === null ? '-' : row.ratio.toFixed(2),
        verdict: row.verdict ?? (row.holds ? 'holds' : 'misses'),
      });
    return byId;
  }
  // A printed table (bench/lib/report.js): columns are separated by two spaces or more.
  for (const line of text.split('\n')) {
    if (!/^\d+[a-z]* /.test(line)) continue;
    const cells = line.trim().split(/\s{2,}/);
    const verdict = cells.at(-1);
    byId.set(line.split(' ')[0], {
      value: cells[1],
      ratio: cells[3],
      verdict: verdict === 'yes' ? 'holds' : verdict === 'NO' ? 'misses' : verdict.toLowerCase(),
    });
  }
  return byId;
}

const latest = JSON.parse(readFileSync(latestPath, 'utf8'));
const previous = previousRun(previousPath);
const header = ['figure', 'value', 'ratio', 'rounds min-max', 'target', 'verdict', 'previous run'];
const rows = latest.figures.map((r) => {
  const before = previous.get(r.id);
  const then = before ? `${before.value}, ratio ${before.ratio}, ${before.verdict}` : '-';
  if (r.error) return [`${r.id} ${r.name}`, 'error', '-', '-', '-', 'misses', then];
  const verdict = r.verdict ?? (r.holds ? 'holds' : 'misses');
  return [
    `${r.id} ${r.name}`,
    formatValue(r.value, r.unit),
    r.ratio === null ? '-' : r.ratio.toFixed(2),
    formatSpread(r),
    r.target,
    verdict === 'misses' ? '**misses**' : verdict,
    then,
  ];
});
const line = (cells) => `| ${cells.map((c) => String(c).replaceAll('|', '\\|')).join(' | ')} |`;
process.stdout.write([line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n') + '\n');
