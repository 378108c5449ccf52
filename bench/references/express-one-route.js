// The framework ceiling: express with the emulator's settings, one route per measured request, answering
// the same JSON with res.json (and parsing the body of a POST, without storing anything).
// argv[2]: a JSON file { "routes": [{ "method", "path", "status", "json", "location"? }] }.
import { readFileSync } from 'node:fs';
import express from 'express';

const { routes } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
for (const route of routes) {
  const handlers = route.method === 'POST' ? [express.json()] : [];
  app[route.method.toLowerCase()](route.path, ...handlers, (_req, res) => {
    if (route.location) res.location(route.location);
    res.status(route.status).json(route.json);
  });
}
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
server.keepAliveTimeout = 5000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
