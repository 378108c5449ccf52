// json-server 0.17 as its CLI runs it (defaults + router over a JSON file, which it rewrites on every
// write without fsync), listening on a free port. argv[2]: the data file.
import jsonServer from 'json-server';

const server = jsonServer.create();
server.use(jsonServer.defaults({ logger: false, bodyParser: true }));
server.use(jsonServer.router(process.argv[2]));
const listener = server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`http://127.0.0.1:${listener.address().port}\n`),
);
listener.keepAliveTimeout = 5000;
process.on('SIGTERM', () => listener.close(() => process.exit(0)));
