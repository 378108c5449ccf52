// `npm run bench`: every figure against its references, one table, bench/results/latest.json.
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { figures } from './figures/index.js';
import { Bench } from './lib/bench.js';
import { parseOptions } from './lib/options.js';
import { printTable, writeResults } from './lib/report.js';

const options = parseOptions(process.argv.slice(2));
if (options.help || options.error) {
  process.stderr.write(`${options.help ?? options.error}\n\nfigures: ${figures.map((f) => f.name).join(', ')}\n`);
  process.exit(options.error ? 2 : 0);
}
const selected = options.only ? figures.filter((f) => options.only.includes(f.name)) : figures;
if (options.only && (selected.length === 0 || selected.length !== options.only.length)) {
  process.stderr.write(`Unknown figure in --only; figures: ${figures.map((f) => f.name).join(', ')}.\n`);
  process.exit(2);
}

const log = (message) => process.stderr.write(`bench: ${message}\n`);
const bench = new Bench(options.profile, log);
log(`${options.profileName} run; temporary files in ${bench.root}`);

let closing;
const close = () => (closing ??= bench.close());
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    log(`${signal}: stopping every server the bench started`);
    close().finally(() => process.exit(130));
  });
}

const startedAt = new Date();
const rows = [];
try {
  for (const figure of selected) {
    const started = performance.now();
    log(`${figure.name}...`);
    try {
      rows.push(...(await figure.run(bench)).map((row) => ({ figure: figure.name, ...row })));
    } catch (err) {
      log(`${figure.name} failed: ${err.stack ?? err}`);
      rows.push({ figure: figure.name, id: figure.name, name: '', error: err.message, holds: false });
    }
    log(`${figure.name} took ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
} finally {
  await close();
}

process.stdout.write(
  `\nplatform-emu bench (${options.profileName}), ${cpus()[0]?.model ?? 'cpu'} x ${availableParallelism()}, ` +
    `node ${process.version}\n\n`,
);
printTable(rows);
const resultsPath = options.results ?? fileURLToPath(new URL('./results/latest.json', import.meta.url));
writeResults(resultsPath, {
  profile: options.profileName,
  startedAt: startedAt.toISOString(),
  seconds: (Date.now() - startedAt.getTime()) / 1000,
  machine: {
    cpu: cpus()[0]?.model ?? null,
    cores: availableParallelism(),
    node: process.version,
    platform: process.platform,
  },
  sizes: { endpoints: options.profile.endpoints, commands: options.profile.commands },
  figures: rows,
});
process.stdout.write(`\nresults: ${resultsPath}\n`);
process.exitCode = rows.some((r) => r.error) ? 1 : 0;
