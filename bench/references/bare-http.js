// The physical ceiling: node:http answering fixed bytes per `METHOD url`, nothing else.
// argv[2]: a JSON file { "routes": { "GET /path?query": { "status", "contentType", "body" } } }.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const { routes } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const answers = new Map(
  Object.entries(routes).map(([key, r]) => [
    key,
    { status: r.status, body: Buffer.from(r.body), contentType: r.contentType },
  ]),
);
const notFound = Buffer.from('{"message":"not found"}');

const server = createServer((req, res) => {
  const answer = answers.get(`${req.method} ${req.url}`);
  // A POST is answered once its body is read, as a real server would.
  req.resume();
  req.on('end', () => {
    if (!answer) {
      res.writeHead(404, { 'content-type': 'application/json', 'content-length': notFound.length });
      return res.end(notFound);
    }
    res.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': answer.body.length });
    res.end(answer.body);
  });
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
