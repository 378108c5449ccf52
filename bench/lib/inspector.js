import { WebSocket } from 'undici';

/**
 * A full garbage collection in a process started with `--inspect` (the DevTools protocol's
 * HeapProfiler.collectGarbage, which also hands freed heap pages back to the system), so that its RSS
 * shows what it keeps alive rather than when V8 last chose to collect.
 */
export async function collectGarbage(inspectorUrl) {
  if (!inspectorUrl) throw new Error('The process was not started with --inspect.');
  const ws = new WebSocket(inspectorUrl);
  try {
    await new Promise((resolve, reject) => {
      ws.addEventListener('open', resolve, { once: true });
      ws.addEventListener('error', () => reject(new Error(`Could not reach the inspector at ${inspectorUrl}.`)), {
        once: true,
      });
    });
    const reply = new Promise((resolve) =>
      ws.addEventListener('message', (event) => resolve(JSON.parse(event.data)), { once: true }),
    );
    ws.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
    const answer = await reply;
    if (answer.error) throw new Error(`HeapProfiler.collectGarbage: ${answer.error.message}`);
  } finally {
    ws.close();
  }
}
