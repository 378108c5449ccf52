import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { median } from './stats.js';

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

const passes = (subject, { op, limit }) =>
  op === '<' ? subject < limit : op === '<=' ? subject <= limit : subject >= limit;

/**
 * The spread of a figure's rounds: min-max of what its target is on. For a ratio target with a reference measured
 * in every round (interleaved), each round's ratio is its value over that same round's reference; with one reference
 * value, each round's value over it.
 */
function spreadOf(target, rounds, referenceRounds, reference) {
  if (!rounds || rounds.length < 2) return null;
  let subjects = rounds;
  if (target.on === 'ratio') {
    if (!reference) return null;
    const paired = referenceRounds?.length === rounds.length;
    subjects = rounds.map((v, i) => v / (paired ? referenceRounds[i] : reference));
  }
  return { min: Math.min(...subjects), max: Math.max(...subjects), rounds: rounds.length };
}

/**
 * A row states its rounds' spread beside its median: a value or reference that is not the median of the rounds given
 * with it (a sum of medians measured apart, say) could put the ratio outside that spread, and its verdict with it.
 */
function checkMedian(id, what, stated, rounds) {
  if (!rounds || rounds.length < 2) return;
  const expected = median(rounds);
  if (Math.abs(stated - expected) > 1e-9 * Math.max(1, Math.abs(expected)))
    throw new Error(`figure ${id}: its ${what} (${stated}) is not the median of its rounds (${expected})`);
}

/**
 * One line of the table. `target` says what must hold: `{ on: 'ratio' | 'value', op: '<' | '<=' | '>=', limit }`.
 * `also` lists further references shown for context (no target), each with its ratio. `checks` are conditions
 * that must hold too (`{ name, ok }`: every sample stored, no command refused...); a failed one is named in the note.
 * `rounds` (and `referenceRounds`, when the reference was measured each round too) are the rounds the medians came
 * from: the row then states their spread, and a figure whose rounds straddle its target is `at the target`
 * (`verdict`), neither holding nor missing; `holds` stays the median's answer.
 */
export function measure({
  id,
  name,
  unit,
  value,
  reference,
  referenceName,
  target,
  also = [],
  note,
  checks = [],
  rounds,
  referenceRounds,
}) {
  checkMedian(id, 'value', value, rounds);
  if (referenceRounds?.length === rounds?.length) checkMedian(id, 'reference', reference, referenceRounds);
  const ratio = reference ? value / reference : null;
  const subject = target.on === 'ratio' ? ratio : value;
  const failed = checks.filter((c) => !c.ok).map((c) => `FAILED: ${c.name}`);
  const holds = failed.length === 0 && subject !== null && passes(subject, target);
  const spread = spreadOf(target, rounds, referenceRounds, reference);
  const straddles = spread !== null && passes(spread.min, target) !== passes(spread.max, target);
  const verdict =
    failed.length > 0 || subject === null ? 'misses' : straddles ? 'at the target' : holds ? 'holds' : 'misses';
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
    verdict,
    spread: spread && { on: target.on, ...spread },
    // Kept so that a reader of the results can see which round made the spread.
    ...(spread ? { rounds, ...(referenceRounds ? { referenceRounds } : {}) } : {}),
    also: also.map((a) => ({ ...a, ratio: a.value ? value / a.value : null })),
    ...(note ? { note } : {}),
  };
}

/** `0.74-0.81` (ratios) or `310-352 ms` (values); `-` for a figure of one round. */
export function formatSpread(row) {
  if (!row.spread) return '-';
  const { min, max, on } = row.spread;
  return on === 'ratio'
    ? `${min.toFixed(2)}-${max.toFixed(2)}`
    : `${formatValue(min, row.unit).split(' ')[0]}-${formatValue(max, row.unit)}`;
}

function pad(cells, widths) {
  return cells
    .map((c, i) => String(c).padEnd(widths[i]))
    .join('  ')
    .trimEnd();
}

export function printTable(rows, write = (s) => process.stdout.write(s)) {
  const header = ['figure', 'value', 'reference', 'ratio', 'rounds min-max', 'target', 'verdict'];
  const lines = rows.map((r) =>
    r.error
      ? [`${r.id} ${r.name}`, 'error', '-', '-', '-', '-', 'NO']
      : [
          `${r.id} ${r.name}`,
          formatValue(r.value, r.unit),
          r.reference === null ? '-' : `${formatValue(r.reference, r.unit)} (${r.referenceName})`,
          r.ratio === null ? '-' : r.ratio.toFixed(2),
          formatSpread(r),
          r.target,
          { holds: 'holds', misses: 'MISSES', 'at the target': 'at the target' }[
            r.verdict ?? (r.holds ? 'holds' : 'misses')
          ],
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
