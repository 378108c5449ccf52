// The floor of an asynchronous durable POST: express parses the body, appends one line as the emulator's log does
// (`durableAppender`: one O_DSYNC write on the thread pool) and answers 201 once it is on disk.
// Nothing is validated, indexed or kept in memory.
// argv[2]: the directory the log is written in.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import express from 'express';
import { durableAppender } from '../lib/durable-append.js';

const append = durableAppender(join(process.argv[2], 'durable-post.jsonl'));
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.post('/epr/api/v1/endpoints', express.json(), (req, res) => {
  const id = randomUUID();
  append({ op: 'put', c: 'endpoints', id, v: req.body }, (error) => {
    if (error) return res.status(500).json({ message: error.message });
    res.location(`/epr/api/v1/endpoints/${id}`);
    res.status(201).json({ endpointId: id, token: 'x'.repeat(16), status: 'Inactive' });
  });
});
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
server.keepAliveTimeout = 5000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
