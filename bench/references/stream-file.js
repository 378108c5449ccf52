// The Node ceiling of a streamed upload and download: node:http writing a POST body to a file (fsynced before
// the answer, as the emulator does) and answering a GET with a file, through plain streams with 1 MB buffers.
// argv[2]: the directory of the files. POST /<name> stores, GET /<name> sends.
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const dir = process.argv[2];
const CHUNK = 1024 * 1024;

const server = createServer(async (req, res) => {
  const file = join(dir, req.url.replace(/[^a-zA-Z0-9.-]/g, '') || 'payload.bin');
  try {
    if (req.method === 'POST') {
      await pipeline(req, createWriteStream(file, { highWaterMark: CHUNK }));
      const handle = await open(file, 'r+');
      await handle.sync();
      await handle.close();
      res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
    } else {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': statSync(file).size });
      await pipeline(createReadStream(file, { highWaterMark: CHUNK }), res);
    }
  } catch (err) {
    if (!res.headersSent) res.writeHead(500).end(err.message);
  }
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
