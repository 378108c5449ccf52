// `npm run build`'s second step, after tsc has type-checked src/ and written dist/ (the library and its types): the
// CLI that bin/platform-emu.js runs, bundled from src/ into dist/bundle/. A start loads a few dozen chunks instead
// of some 200 module files, which Node 20 resolves and links one by one (docs/performance.md, figure 1a).
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

await build({
  cwd: fileURLToPath(new URL('..', import.meta.url)),
  input: { cli: 'src/cli/main.ts' },
  platform: 'node',
  // Packages stay in node_modules and load as they do for the library; only our own files are bundled.
  external: [/^node:/, ...builtinModules, /^[a-z@]/],
  output: {
    dir: 'dist/bundle',
    cleanDir: true,
    format: 'esm',
    // Every `await import()` stays a chunk of its own: a run loads only the commands and modules it uses.
    chunkFileNames: '[name]-[hash].js',
    // Mappings only, which is what stack traces need (bin/platform-emu.js turns them on): Node reads a chunk's map
    // when it loads the chunk.
    sourcemap: true,
    sourcemapExcludeSources: true,
  },
});
