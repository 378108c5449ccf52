// Runs the options of bench/references/blob-options.js side by side with the emulator's own bcx routes, with the
// clients of figure 8: `node bench/references/blob-options-run.js [rounds]` after `npm run build`. Every upload runs
// in a fresh process (the growth of a process's memory is paid by its first upload), the downloads in one process.
// Prints, per option, the median wall time and its ratio to fs.copyFile (+ fsync for uploads), the process's CPU
// time and its RSS growth (median and max).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { copyFile, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { download, payloadFile, upload } from '../figures/blobs.js';

const MB = 1024 * 1024;
const BYTES = 100 * MB;
const ROUNDS = Number(process.argv[2] ?? 3);
const SERVER = fileURLToPath(new URL('./blob-options.js', import.meta.url));
const UPLOADS = ['bcx', 'pipe-1m', 'pipe-4m', 'pipe-16m', 'handle-write', 'handle-writev', 'scavenge-8m'];
const DOWNLOADS = ['bcx', 'stream-64k', 'stream-1m', 'stream-4m', 'blocks-256k', 'blocks-1m', 'blocks-4m'];
const DEVICE_PATH = '/kp1/smart-meter-v1/bcx/meter-001-token/token';

const dir = mkdtempSync(join(tmpdir(), 'platform-emu-blob-options-'));
const source = join(dir, 'payload.bin');
await payloadFile(source, BYTES);

async function startOptions() {
  const files = mkdtempSync(join(dir, 'server-'));
  const child = spawn(process.execPath, [SERVER, files], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [emulatorUrl, url] = await new Promise((resolve) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.trim().split(' '));
    });
  });
  const token = (await (await fetch(emulatorUrl + DEVICE_PATH, { method: 'POST', body: '{}' })).json()).token;
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
  const cpu = async () => Number(await (await fetch(`${url}/cpu`)).text());
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(files, { recursive: true, force: true });
  };
  // Settle after the start, as figure 8 does before its first transfer.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  return { emulatorUrl, url, token, rss, cpu, stop, files };
}

const results = new Map();
async function measure(name, server, work) {
  await server?.cpu();
  const before = server?.rss() ?? 0;
  let peak = before;
  const timer = server && setInterval(() => (peak = Math.max(peak, server.rss())), 5);
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  clearInterval(timer);
  const row = { ms, cpu: server ? await server.cpu() : 0, growth: server ? Math.max(peak, server.rss()) - before : 0 };
  results.set(name, [...(results.get(name) ?? []), row]);
  return result;
}

async function fsync(file) {
  const handle = await open(file, 'r+');
  await handle.sync();
  await handle.close();
}

for (let round = 0; round < ROUNDS; round++) {
  const copied = join(dir, 'copy.bin');
  await measure('copy + fsync', undefined, async () => {
    await copyFile(source, copied);
    await fsync(copied);
  });
  await rm(copied);
  let blob;
  let downloads;
  for (const option of UPLOADS) {
    const server = await startOptions();
    if (option === 'bcx') {
      blob = await measure(`upload ${option}`, server, () =>
        upload(`${server.emulatorUrl}/bcx/api/v1/binary-data?name=x`, { 'x-auth-token': server.token }, source, BYTES),
      );
      downloads = server;
      // What the download options send: the same bytes, in the options server's directory.
      await copyFile(source, join(server.files, 'payload.bin'));
    } else {
      await measure(`upload ${option}`, server, () =>
        upload(`${server.url}/up/${option}/payload.bin`, {}, source, BYTES),
      );
      await server.stop();
    }
  }
  await measure('copy', undefined, () => copyFile(source, copied));
  await rm(copied);
  const blobPath = `/bcx/api/v1/applications/smart-meter/endpoints/meter-001/binary-data/${blob.id}/data`;
  const target = join(dir, 'download.bin');
  // One download before the timed ones, so that the first timed one does not pay for the process's warm-up.
  await download(downloads.emulatorUrl, blobPath, target);
  for (const option of DOWNLOADS) {
    await measure(`download ${option}`, downloads, () =>
      option === 'bcx'
        ? download(downloads.emulatorUrl, blobPath, target)
        : download(downloads.url, `/down/${option}/payload.bin`, target),
    );
    if (statSync(target).size !== BYTES) throw new Error(`download ${option}: ${statSync(target).size} bytes`);
    await rm(target);
  }
  await downloads.stop();
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const reference = {
  upload: median(results.get('copy + fsync').map((r) => r.ms)),
  download: median(results.get('copy').map((r) => r.ms)),
};
for (const [name, rows] of results) {
  const ms = median(rows.map((r) => r.ms));
  const base = reference[name.split(' ')[0]] ?? ms;
  const wall = rows.map((r) => r.ms);
  const growth = rows.map((r) => r.growth);
  const cpu = median(rows.map((r) => r.cpu)).toFixed(0);
  console.log(
    `${name.padEnd(22)} ${ms.toFixed(0).padStart(5)} ms (${Math.min(...wall).toFixed(0)}-` +
      `${Math.max(...wall).toFixed(0)})  ratio ${(base / ms).toFixed(2)}  cpu ${cpu.padStart(4)} ms  ` +
      `rss growth ${median(growth).toFixed(1)} MB (max ${Math.max(...growth).toFixed(1)})`,
  );
}
rmSync(dir, { recursive: true, force: true });
