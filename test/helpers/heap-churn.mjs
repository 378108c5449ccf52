// A process whose heap fills with objects that outlive a few young collections and then die (as a fleet's samples
// do in the emulator): prints its peak used heap in bytes. With `cap`, it first calls the CLI's `capHeapGrowth`.
import { getHeapStatistics } from 'node:v8';

if (process.argv[2] === 'cap') {
  const { capHeapGrowth } = await import(new URL('../../dist/cli/heap-growth.js', import.meta.url).href);
  capHeapGrowth();
}
const ring = new Array(200_000);
let peak = 0;
for (let round = 0; round < 40; round++) {
  for (let i = 0; i < ring.length; i++) ring[i] = { round, i, items: [round, i, `item-${i}`] };
  await new Promise((resolve) => setImmediate(resolve));
  peak = Math.max(peak, getHeapStatistics().used_heap_size);
}
process.stdout.write(`${JSON.stringify({ peak, items: ring.length })}\n`);
