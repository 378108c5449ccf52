// The second step of `npm run build`: joins tsc's output of the CLI (dist/) and the packages it imports into a few
// files in dist/bundle/, which bin/platform-emu.js runs. Node 20 loads each module file for about half a millisecond
// (resolution, reading, compiling), and a start loaded some 230 files of ours and the files of the packages it uses
// (express's CommonJS tree alone is some 60 packages): from the bundle a start answers about a third sooner
// (docs/performance.md, figure 1a). Every `import()` of ours stays a file of its own (`splitting`), so what a command
// does not use is not loaded; the worker threads are entry points of their own, named as in dist/, beside the chunks
// that start them. A package our code loads only when first needed, with `import()` or `createRequire`, stays in
// node_modules and runs as it ships: esbuild gives the `import()` of a CommonJS package only its `default`, where node
// also gives the names it finds in it (undici's `request`, mqtt's `connect`).
// dist/bundle/meta.json says which of dist/'s modules and which packages each file holds (test/helpers/own-modules.ts).
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bundle`;

/** Keeps the packages that our modules load with `import()` in node_modules (see above). */
const packagesLoadedLater = {
  name: 'packages-loaded-later',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, ({ path, kind, importer }) =>
      kind === 'dynamic-import' && !path.startsWith('node:') && importer.startsWith(`${root}dist/`)
        ? { path, external: true }
        : undefined,
    );
  },
};

rmSync(outdir, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: [
    'dist/cli/main.js',
    'dist/tls/authority-worker.js',
    'dist/cli/device/fleet-worker.js',
    'dist/gateway/wire-thread.js',
  ],
  outdir,
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // The packages' CommonJS modules call `require` for node's own modules; an ES module has none of its own.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
  },
  plugins: [packagesLoadedLater],
  // Class and function names as in the source: messages and stack traces name them.
  keepNames: true,
  metafile: true,
  sourcemap: 'linked',
  // The maps name the src/ lines; the TypeScript itself is in dist/'s maps (the package holds no src/).
  sourcesContent: false,
  logLevel: 'warning',
});

/** The folder of the package an input belongs to (the innermost `node_modules/<name>/`), undefined for dist/'s. */
const folderOf = (input) => /^(?:.*\/)?node_modules\/(?:@[^/]+\/)?[^/]+\/(?!.*\/node_modules\/)/.exec(input)?.[0];
const packageOf = (input) => folderOf(input)?.replace(/^.*node_modules\/(.*)\/$/, '$1');
const contentsOf = Object.fromEntries(
  Object.entries(metafile.outputs)
    .filter(([file]) => file.endsWith('.js'))
    .map(([file, output]) => {
      const inputs = Object.keys(output.inputs);
      return [
        file.slice('dist/bundle/'.length),
        {
          modules: inputs.filter((input) => input.startsWith('dist/')).map((input) => input.slice('dist/'.length)),
          packages: [...new Set(inputs.map(packageOf).filter(Boolean))].sort(),
        },
      ];
    }),
);
writeFileSync(`${outdir}/meta.json`, `${JSON.stringify(contentsOf, null, 1)}\n`);

// The bundle holds copies of the packages' code: their licences go with it, as each package ships them.
const noticeOf = (folder) => {
  const { name, version, license } = JSON.parse(readFileSync(`${root}${folder}package.json`, 'utf8'));
  const licenceFile = readdirSync(`${root}${folder}`).find((file) => /^(licen[cs]e|copying)/i.test(file));
  const text = licenceFile ? readFileSync(`${root}${folder}${licenceFile}`, 'utf8').trim() : `License: ${license}`;
  return `${name}@${version}\n\n${text}\n`;
};
const folders = new Set(Object.keys(metafile.inputs).map(folderOf).filter(Boolean));
const notices = [...new Set([...folders].map(noticeOf))].sort();
writeFileSync(
  `${outdir}/THIRD-PARTY-LICENSES.txt`,
  `The files of this folder hold code of these packages, under these licences.\n\n` +
    notices.join(`\n${'-'.repeat(79)}\n\n`),
);
