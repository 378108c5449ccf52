// The second step of `npm run build`: the CLI's modules of dist/ as a few files in dist/cli-bundle/, which
// bin/platform-emu.js runs (docs/architecture.md, "The CLI's bundle"). Node's ESM loader spends about half a
// millisecond of a start on each module it loads; a start loads over two hundred of ours (bench figure 1a).
import { build } from 'esbuild';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = resolve(root, 'dist');
const outdir = resolve(dist, 'cli-bundle');

/**
 * Every module keeps the `import.meta.url` of its twin in dist/, so that what it finds beside itself (the fixtures,
 * package.json, the dashboard's files, the worker threads' entries, createRequire's packages) is found as before.
 */
const ownUrls = {
  name: 'own-import-meta-url',
  setup(bundle) {
    bundle.onLoad({ filter: /\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const twin = JSON.stringify(relative(outdir, args.path).split('\\').join('/'));
      return { contents: text.replaceAll('import.meta.url', `new URL(${twin}, import.meta.url).href`), loader: 'js' };
    });
  },
};

// A fresh directory each build: its files' names carry a hash of their contents.
await rm(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: { main: resolve(dist, 'cli/main.js') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Packages load from node_modules as before; only our own modules are joined.
  packages: 'external',
  // Class and function names as tsc wrote them: they show in errors and stack traces.
  keepNames: true,
  // Chained to tsc's maps: under `node --enable-source-maps` a stack names the src/ line.
  sourcemap: true,
  chunkNames: '[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
  plugins: [ownUrls],
});

// Which of dist/'s modules each file of the bundle holds: what the tests of what a run loads read.
const modules = {};
for (const [output, { inputs }] of Object.entries(result.metafile.outputs)) {
  if (!output.endsWith('.js')) continue;
  modules[relative(outdir, resolve(root, output))] = Object.keys(inputs).map((input) =>
    relative(dist, resolve(root, input)).split('\\').join('/'),
  );
}
await writeFile(resolve(outdir, 'modules.json'), `${JSON.stringify(modules, null, 2)}\n`);
