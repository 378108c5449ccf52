import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpJson } from './http.js';
import { collectGarbage } from './inspector.js';
import { load } from './load.js';
import { rssOf, startServer, stopAll, stopProcess } from './processes.js';
import { copyState, fixtureDocument, writeLargeState } from './state.js';

const repo = (path) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const BIN = repo('bin/platform-emu.js');
const REFERENCES = repo('bench/references');

/** The default tenant's endpoints, as the endpoint register counts them. */
export async function endpointCount(url) {
  return (await httpJson(`${url}/epr/api/v1/endpoints?limit=1`)).totalElements;
}

/**
 * What every figure gets: the profile, temporary directories, the large state (built once), emulators
 * and reference servers as child processes, and the load generator. Everything it starts is stopped,
 * and its temporary root removed, by `close()` (run.js calls it on every way out, Ctrl-C included).
 */
export class Bench {
  constructor(profile, log) {
    this.profile = profile;
    this.log = log;
    this.root = mkdtempSync(join(tmpdir(), 'platform-emu-bench-'));
    this.cache = new Map();
  }

  dir(name) {
    const path = join(this.root, `${name}-${this.cache.size}-${Math.random().toString(36).slice(2, 8)}`);
    mkdirSync(path, { recursive: true });
    return path;
  }

  /** Writes a JSON file under the temporary root (reference configurations, json-server data). */
  file(name, value) {
    const path = join(this.dir('files'), name);
    writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
    return path;
  }

  once(key, create) {
    if (!this.cache.has(key)) this.cache.set(key, create());
    return this.cache.get(key);
  }

  /**
   * The large state of figures 1-5 (endpoints with metadata, stored commands), written once; copy it before writing to
   * it.
   */
  largeState() {
    return this.once('large-state', () =>
      this.writeState('large-state', { endpoints: this.profile.endpoints, commands: this.profile.commands }),
    );
  }

  /**
   * Writes a state (see writeLargeState: `endpoints`, `commands`, `points`, `versions`, `fixture`) under the
   * temporary root; resolves with its directory and document. Copy the directory (`copy`) before an emulator writes to
   * it.
   */
  async writeState(name, sizes) {
    const dir = this.dir(name);
    const started = performance.now();
    const document = await writeLargeState(dir, sizes);
    const what = Object.entries(sizes)
      .filter(([, v]) => typeof v === 'number' && v > 0)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ');
    this.log(`built the state ${name} (${what}) in ${Math.round(performance.now() - started)} ms`);
    return { dir, document };
  }

  /** The state the default fixtures seed (what an empty data directory starts with). */
  fixtureState() {
    return this.once('fixture-state', () => fixtureDocument());
  }

  async largeStateCopy(name) {
    return copyState((await this.largeState()).dir, this.dir(name));
  }

  /** A copy of a data directory, for one emulator to use. */
  copy(dir, name) {
    return copyState(dir, this.dir(name));
  }

  /** `platform-emu start` as a user runs it, on free ports; resolves once it printed its URL (it is ready then). */
  async startEmulator({ dataDir, auth = 'off', args = [], inspect = false } = {}) {
    const server = await startServer(
      process.execPath,
      [
        ...(inspect ? ['--inspect=127.0.0.1:0'] : []),
        BIN,
        'start',
        '--port',
        '0',
        '--mqtt-port',
        '0',
        '--quiet',
        '--auth',
        auth,
        ...(dataDir ? ['--data', dataDir] : ['--in-memory']),
        ...args,
      ],
      { label: 'platform-emu start' },
    );
    return {
      ...server,
      rss: () => rssOf(server.child.pid),
      rssAfterGc: async () => {
        await collectGarbage(server.inspectorUrl());
        return rssOf(server.child.pid);
      },
      stop: () => stopProcess(server.child),
    };
  }

  /**
   * The emulator of figures 2, 3 and 5: a copy of the large state, auth off, one process for the
   * whole run, so that memory after the read and write runs can be compared with memory at start.
   * Started with `--inspect` (idle, nothing attached) so that figure 5 can ask for a full collection.
   */
  sharedEmulator() {
    return this.once('shared-emulator', async () => {
      const emulator = await this.startEmulator({ dataDir: await this.largeStateCopy('shared'), inspect: true });
      const rssAtReady = emulator.rss();
      const rssAtStart = await this.settledRss(emulator);
      const endpointsAtStart = await endpointCount(emulator.url);
      return {
        ...emulator,
        rssAtReady,
        rssAtStart,
        liveAtStart: await emulator.rssAfterGc(),
        endpointsAtStart,
        served: 0,
      };
    });
  }

  /**
   * RSS once the process has been idle for the profile's settle time: right after a start, the heap still
   * holds the garbage of parsing the snapshot, which V8 collects and hands back to the system moments later.
   */
  async settledRss(server) {
    await new Promise((resolve) => setTimeout(resolve, this.profile.settleSeconds * 1000));
    return server.rss();
  }

  /**
   * A reference server from bench/references (`bare-http`, `express-one-route`, `json-server`), given its file
   * argument.
   */
  async startReference(name, fileArgument) {
    const server = await startServer(process.execPath, [join(REFERENCES, `${name}.js`), fileArgument], { label: name });
    return { ...server, rss: () => rssOf(server.child.pid), stop: () => stopProcess(server.child) };
  }

  /** Starts a server, hands it to `use`, stops it whatever happens. */
  async using(start, use) {
    const server = await start();
    try {
      return await use(server);
    } finally {
      await server.stop();
    }
  }

  /** Starts several servers (`{ name: start }`), hands them to `use` by name, stops them all whatever happens. */
  async usingAll(starts, use) {
    const servers = {};
    try {
      for (const [name, start] of Object.entries(starts)) servers[name] = await start();
      return await use(servers);
    } finally {
      await Promise.all(Object.values(servers).map((server) => server.stop()));
    }
  }

  /**
   * Runs every task once per round, in the same order each round, so that a slow moment of a shared
   * machine touches every series alike. Resolves with each task's results (one per round).
   */
  async interleave(tasks) {
    const results = Object.fromEntries(Object.keys(tasks).map((key) => [key, []]));
    for (let round = 0; round < this.profile.rounds; round++) {
      for (const [key, task] of Object.entries(tasks)) results[key].push(await task());
    }
    return results;
  }

  async load(job) {
    const result = await load(this, job);
    const shared = this.cache.get('shared-emulator');
    if (shared && job.url === (await shared).url) (await shared).served += result.requests;
    return result;
  }

  async close() {
    await stopAll();
    rmSync(this.root, { recursive: true, force: true });
  }
}
