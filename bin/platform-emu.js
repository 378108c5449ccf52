#!/usr/bin/env node
import { existsSync } from 'node:fs';

// The CLI runs from the bundle `npm run build` writes (scripts/bundle.js), not from tsc's dist/ tree.
const entry = new URL('../dist/bundle/cli.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('platform-emu is not built yet: run `npm install` (or `npm run build`) in its folder first.\n');
  process.exit(1);
}
// Stack traces (a 500's log line, a crash) name src/ files and lines, through the bundle's source maps.
process.setSourceMapsEnabled(true);
const { main } = await import(entry.href);
await main(process.argv);
