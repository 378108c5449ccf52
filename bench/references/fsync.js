// The fsync ceiling: append one line to a file and fdatasync it, `count` times, on the disk the bench's
// data directories live on. argv[2]: directory, argv[3]: count. Prints { p50, p99 } in milliseconds.
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const [dir, count] = [process.argv[2], Number(process.argv[3])];
// About the size of the log line of one registered endpoint.
const line = Buffer.from(
  `${JSON.stringify({ s: 1, m: [{ op: 'put', c: 'endpoints', id: 'x'.repeat(36), v: { pad: 'x'.repeat(380) } }] })}\n`,
);
const fd = openSync(join(dir, 'fsync-ceiling.jsonl'), 'a');
const times = [];
for (let i = 0; i < count; i++) {
  const started = performance.now();
  writeSync(fd, line);
  fdatasyncSync(fd);
  times.push(performance.now() - started);
}
closeSync(fd);
times.sort((a, b) => a - b);
const at = (p) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))];
process.stdout.write(`${JSON.stringify({ p50: at(50), p99: at(99) })}\n`);
