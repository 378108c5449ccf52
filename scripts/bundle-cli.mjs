// The second step of `npm run build`: joins tsc's output of the CLI (dist/) into a few files in dist/bundle/, which
// bin/platform-emu.js runs. Node 20 loads each ES module file for about half a millisecond (resolution, reading,
// linking), and a start loaded some 230 files of ours: from one bundle a start answers about a fifth sooner
// (docs/performance.md, figure 1a). Packages stay in node_modules (`packages: 'external'`), so each runs as it ships;
// every `import()` of ours stays a file of its own (`splitting`), so what a command does not use is not loaded; the
// worker threads are entry points of their own, named as in dist/, beside the chunks that start them.
// dist/bundle/meta.json says which of dist/'s modules each file holds (test/helpers/own-modules.ts reads it).
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bundle`;

rmSync(outdir, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: ['dist/cli/main.js', 'dist/tls/authority-worker.js', 'dist/cli/device/fleet-worker.js'],
  outdir,
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // Class and function names as in the source: messages and stack traces name them.
  keepNames: true,
  metafile: true,
  sourcemap: 'linked',
  // The maps name the src/ lines; the TypeScript itself is in dist/'s maps (the package holds no src/).
  sourcesContent: false,
  logLevel: 'warning',
});

const modulesOf = Object.fromEntries(
  Object.entries(metafile.outputs)
    .filter(([file]) => file.endsWith('.js'))
    .map(([file, output]) => [
      file.slice('dist/bundle/'.length),
      Object.keys(output.inputs).map((input) => input.slice('dist/'.length)),
    ]),
);
writeFileSync(`${outdir}/meta.json`, `${JSON.stringify(modulesOf, null, 1)}\n`);
