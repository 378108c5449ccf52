// The upload and download options of issue 33 (figures 8a-8c) side by side, inside a process that also runs the
// emulator (so that each option meets the emulator's heap, as the bcx routes do). Not a figure: the experiment that
// chose what src/store/blob-files.ts does (docs/performance.md, part three). argv[2]: a directory for the files.
// Prints `<emulator url> <options url>`. POST /up/<option>/<name> stores a body, GET /down/<option>/<name> sends a
// file, GET /cpu answers the process's CPU milliseconds since the last /cpu.
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startEmulator } from '../../dist/index.js';

const dir = process.argv[2];
const MB = 1024 * 1024;
const emulator = await startEmulator({ port: 0, mqttPort: 0, dataDir: join(dir, 'emulator'), auth: 'off' });

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
setFlagsFromString('--no-expose-gc');

async function fsync(file) {
  const handle = await open(file, 'r+');
  await handle.sync();
  await handle.close();
}

/** A scavenge every `every` bytes of the request's body (what src/store/scavenge.ts does). */
function scavenging(req, every) {
  let since = 0;
  req.on('data', (chunk) => {
    since += chunk.length;
    if (since >= every) {
      since = 0;
      gc({ type: 'minor' });
    }
  });
}

const uploads = {
  // request.pipe(fs.createWriteStream) with a larger highWaterMark, then one fsync.
  'pipe-1m': async (req, file) => {
    await pipeline(req, createWriteStream(file, { highWaterMark: MB }));
    await fsync(file);
  },
  'pipe-4m': async (req, file) => {
    await pipeline(req, createWriteStream(file, { highWaterMark: 4 * MB }));
    await fsync(file);
  },
  'pipe-16m': async (req, file) => {
    await pipeline(req, createWriteStream(file, { highWaterMark: 16 * MB }));
    await fsync(file);
  },
  // stream.pipeline into a file handle (no O_DSYNC), one write per chunk, one fsync at the end.
  'handle-write': async (req, file) => {
    const handle = await open(file, 'wx');
    try {
      await pipeline(req, async (chunks) => {
        for await (const chunk of chunks) await handle.write(chunk);
      });
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  // The same, the chunks that arrive during a write gathered into the next writev.
  'handle-writev': async (req, file) => {
    const handle = await open(file, 'wx');
    try {
      let pending = [];
      let writing;
      const flush = () => {
        const batch = pending;
        pending = [];
        writing = handle.writev(batch).then(() => (writing = pending.length ? flush() : undefined));
        return writing;
      };
      for await (const chunk of req) {
        pending.push(chunk);
        if (!writing) flush();
      }
      while (writing) await writing;
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  // pipe-1m with a scavenge every 8 MiB of body.
  'scavenge-8m': async (req, file) => {
    scavenging(req, 8 * MB);
    await uploads['pipe-1m'](req, file);
  },
};

/** Two reused blocks of `size` bytes, one read while the other is sent (what StoredPayload.sendTo does with 1 MiB). */
async function reusedBlocks(res, file, size) {
  const handle = await open(file, 'r');
  const blocks = [Buffer.allocUnsafeSlow(size), Buffer.allocUnsafeSlow(size)];
  const sending = [Promise.resolve(), Promise.resolve()];
  try {
    for (let current = 0, position = 0; ; current ^= 1) {
      await sending[current];
      const { bytesRead } = await handle.read(blocks[current], 0, size, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const block = blocks[current].subarray(0, bytesRead);
      sending[current] = new Promise((resolve, reject) => res.write(block, (err) => (err ? reject(err) : resolve())));
    }
    await Promise.all(sending);
    res.end();
  } finally {
    await handle.close();
  }
}

const downloads = {
  // fs.createReadStream piped to the answer: 64 KiB is its default, and what express's res.sendFile (send) uses.
  'stream-64k': (res, file) => pipeline(createReadStream(file), res),
  'stream-1m': (res, file) => pipeline(createReadStream(file, { highWaterMark: MB }), res),
  'stream-4m': (res, file) => pipeline(createReadStream(file, { highWaterMark: 4 * MB }), res),
  'blocks-256k': (res, file) => reusedBlocks(res, file, 256 * 1024),
  'blocks-1m': (res, file) => reusedBlocks(res, file, MB),
  'blocks-4m': (res, file) => reusedBlocks(res, file, 4 * MB),
};

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
let lastCpu = cpuMs();

const server = createServer(async (req, res) => {
  const [, kind, option, name] = req.url.split('/');
  try {
    if (kind === 'cpu') {
      const now = cpuMs();
      res.end(String(now - lastCpu));
      lastCpu = now;
      return;
    }
    const file = join(dir, name.replace(/[^a-zA-Z0-9.-]/g, ''));
    if (kind === 'up') {
      await uploads[option](req, file);
      res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': statSync(file).size });
    await downloads[option](res, file);
  } catch (err) {
    if (!res.headersSent) res.writeHead(500).end(err.message);
  }
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`${emulator.url} http://127.0.0.1:${server.address().port}\n`),
);
process.on('SIGTERM', async () => {
  await emulator.stop();
  process.exit(0);
});
