#!/usr/bin/env node
import { existsSync } from 'node:fs';

// The CLI's bundle (scripts/bundle-cli.mjs): the same code as dist/cli/, in a few files, which start sooner.
const entry = new URL('../dist/bundle/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'platform-emu is not built yet: run `npm run build` in its folder first (a published package is built already).\n',
  );
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv);
