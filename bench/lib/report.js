import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const UNITS = {
  ms: (v) => `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US')} ms`,
  'req/s': (v) => `${Math.round(v).toLocaleString('en-US')} req/s`,
  MB: (v) => `${v.toFixed(1)} MB`,
  'MB/s': (v) => `${Math.round(v).toLocaleString('en-US')} MB/s`,
};

/** Counts (samples, commands) and anything else: whole numbers grouped, others with two decimals. */
const plain = (unit) => (v) => `${Number.isInteger(v) ? v.toLocaleString('en-US') : v.toFixed(2)} ${unit}`;

export const formatValue = (value, unit) =>
  value === null || value === undefined ? '-' : (UNITS[unit] ?? plain(unit))(value);

/**
 * One line of the table. `target` says what must hold: `{ on: 'ratio' | 'value', op: '<' | '<=' | '>=', limit }`.
 * `also` lists further references shown for context (no target), each with its ratio. `checks` are conditions
 * that must hold too (`{ name, ok }`: every sample stored, no command refused...); a failed one is named in the note.
 */
export function measure({ id, name, unit, value, reference, referenceName, target, also = [], note, checks = [] }) {
  const ratio = reference ? value / reference : null;
  const subject = target.on === 'ratio' ? ratio : value;
  const failed = checks.filter((c) => !c.ok).map((c) => `FAILED: ${c.name}`);
  const holds =
    failed.length === 0 &&
    subject !== null &&
    (target.op === '<'
      ? subject < target.limit
      : target.op === '<='
        ? subject <= target.limit
        : subject >= target.limit);
  note = [...failed, ...(note ? [note] : [])].join('; ') || undefined;
  const targetText =
    `${target.on === 'ratio' ? 'ratio' : 'value'} ${target.op} ` +
    `${target.on === 'ratio' ? target.limit : formatValue(target.limit, unit)}`;
  return {
    id,
    name,
    unit,
    value,
    reference: reference ?? null,
    referenceName: referenceName ?? null,
    ratio,
    target: targetText,
    holds,
    also: also.map((a) => ({ ...a, ratio: a.value ? value / a.value : null })),
    ...(note ? { note } : {}),
  };
}

function pad(cells, widths) {
  return cells
    .map((c, i) => String(c).padEnd(widths[i]))
    .join('  ')
    .trimEnd();
}

export function printTable(rows, write = (s) => process.stdout.write(s)) {
  const header = ['figure', 'value', 'reference', 'ratio', 'target', 'holds'];
  const lines = rows.map((r) =>
    r.error
      ? [`${r.id} ${r.name}`, 'error', '-', '-', '-', 'NO']
      : [
          `${r.id} ${r.name}`,
          formatValue(r.value, r.unit),
          r.reference === null ? '-' : `${formatValue(r.reference, r.unit)} (${r.referenceName})`,
          r.ratio === null ? '-' : r.ratio.toFixed(2),
          r.target,
          r.holds ? 'yes' : 'NO',
        ],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
  const out = [pad(header, widths), widths.map((w) => '-'.repeat(w)).join('  ')];
  rows.forEach((r, i) => {
    out.push(pad(lines[i], widths));
    if (r.error) out.push(`    ${r.error}`);
    for (const a of r.also ?? [])
      out.push(
        `    also: ${a.name} ${formatValue(a.value, r.unit)}, ratio ${a.ratio === null ? '-' : a.ratio.toFixed(2)}`,
      );
    if (r.note) out.push(`    note: ${r.note}`);
  });
  write(`${out.join('\n')}\n`);
}

export function writeResults(path, results) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
}
