// The floor of an asynchronous durable POST: express parses the body, appends one line to a file opened with
// O_DSYNC (one write on the thread pool that returns once the line is on disk, as the emulator's log does) and
// answers 201 once it is written (where the system has no O_DSYNC, an fdatasync follows the write, as in the log).
// Nothing is validated, indexed or kept in memory.
// argv[2]: the directory the log is written in.
import { constants, fdatasync, openSync, write } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import express from 'express';

const DSYNC = constants.O_DSYNC ?? 0;
const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | DSYNC;
const fd = openSync(join(process.argv[2], 'durable-post.jsonl'), flags);
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.post('/epr/api/v1/endpoints', express.json(), (req, res) => {
  const id = randomUUID();
  const line = Buffer.from(`${JSON.stringify({ op: 'put', c: 'endpoints', id, v: req.body })}\n`);
  const answer = (error) => {
    if (error) return res.status(500).json({ message: error.message });
    res.location(`/epr/api/v1/endpoints/${id}`);
    res.status(201).json({ endpointId: id, token: 'x'.repeat(16), status: 'Inactive' });
  };
  write(fd, line, 0, line.length, null, (error) => (error || DSYNC ? answer(error) : fdatasync(fd, answer)));
});
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
server.keepAliveTimeout = 5000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
