import { execa } from 'execa';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// The bench is plain JavaScript (ESM), imported as is.
import { figures } from '../bench/figures/index.js';

const RUN = new URL('../bench/run.js', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Processes whose command line names the bench's temporary root: the servers it started. */
function processesUnder(root: string): string[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes(root) && !line.includes('ps -eo'));
}

const temporaryRoot = (stderr: string) => /temporary files in (\S+)/.exec(stderr)?.[1];

interface Row {
  figure: string;
  id: string;
  value: number;
  reference: number | null;
  ratio: number | null;
  target: string;
  holds: boolean;
  error?: string;
}

describe('npm run bench at smoke size', () => {
  it('completes and reports every figure with value, reference, ratio, target and holds', async () => {
    const results = join(scratch, 'latest.json');
    // Thirteen figures, each starting its own servers and load generators: about 63 s of CPU, 57 s alone on a 2-core
    // machine (fleet 16 s, reads 10 s, round trips 7 s the longest); beside the other test files of `npm test`, which
    // start it first and keep two more files running throughout, 104-194 s: the run is given 400 s.
    const run = await execa('node', [RUN, '--smoke', '--results', results], { reject: false, timeout: 400_000 });
    expect(run.stderr).not.toMatch(/failed/);
    expect(run.exitCode).toBe(0);

    const report = JSON.parse(readFileSync(results, 'utf8')) as { profile: string; figures: Row[] };
    expect(report.profile).toBe('smoke');
    for (const figure of figures as Array<{ name: string }>) {
      expect(
        report.figures.some((row) => row.figure === figure.name),
        `rows of figure ${figure.name}`,
      ).toBe(true);
    }
    for (const row of report.figures) {
      expect(row.error, `${row.id} ${row.error}`).toBeUndefined();
      expect(typeof row.value, row.id).toBe('number');
      expect(typeof row.reference, row.id).toBe('number');
      expect(typeof row.ratio, row.id).toBe('number');
      expect(row.target, row.id).toMatch(/^(ratio|value) (<|<=|>=) /);
      expect(typeof row.holds, row.id).toBe('boolean');
      expect(run.stdout, `table line of ${row.id}`).toContain(`${row.id} `);
    }
    // The temporary data directories are gone, and so is every server.
    const root = temporaryRoot(run.stderr)!;
    expect(existsSync(root)).toBe(false);
    expect(processesUnder(root)).toEqual([]);
  }, 420_000);

  it('stops every server it started and removes its files when interrupted', async () => {
    const bench = execa('node', [RUN, '--smoke', '--only', 'writes', '--results', join(scratch, 'interrupted.json')], {
      reject: false,
    });
    let stderr = '';
    bench.stderr!.on('data', (chunk) => (stderr += chunk));
    // Interrupt once an emulator of the bench is running.
    await expect
      .poll(() => temporaryRoot(stderr) !== undefined && processesUnder(temporaryRoot(stderr)!).length > 0, {
        timeout: 30_000,
        interval: 50,
      })
      .toBe(true);
    bench.kill('SIGINT');
    const result = await bench;
    expect(result.exitCode).toBe(130);
    const root = temporaryRoot(stderr)!;
    expect(processesUnder(root)).toEqual([]);
    expect(existsSync(root)).toBe(false);
    expect(existsSync(join(scratch, 'interrupted.json'))).toBe(false);
  }, 60_000);
});
