import { runtimeOf, type EmuContext } from '../../context.js';
import { StoreValueError, type Mutation } from '../../store/index.js';
import type { Endpoint } from '../epr/endpoints.js';
import { definitionCovering, findDefinition, type Definition } from './definitions.js';
import { addPoint, appendMutations, type NewPoint, type PointBatch } from './points.js';

/** A point of a device's data sample, for the series it goes to. */
export interface SamplePoint {
  series: string;
  point: NewPoint;
}

/**
 * How long the first sample of a batch waits for others. Each commit is one O_DSYNC write, and on the machines the
 * bench runs on that write costs the process about 300 µs of CPU whatever it carries: a fleet of 1,000 devices
 * (1,000 samples a second) wrote one every two or three samples. Within 5 ms they come a few at a time, so the
 * window saves most of those writes for at most 5 ms more on each sample's reply (docs/performance.md, 6c).
 */
export const SAMPLE_WINDOW_MS = 5;
/** A batch this large is committed at once: one log line stays small, and a burst never waits. */
const MAX_BATCH = 500;

interface Waiting {
  endpoint: Endpoint;
  points: readonly SamplePoint[];
  resolve: () => void;
  reject: (err: Error) => void;
}

/** The definitions the batch's points need (new series, value names a definition lacks), made once per series. */
function definitionMutations(ctx: EmuContext, batch: readonly Waiting[]): Mutation[] {
  // Per application and series: the tenant, and every value name the batch's points use.
  const needed = new Map<string, { tenantId: string; appName: string; series: string; names: Set<string> }>();
  for (const { endpoint, points } of batch) {
    for (const { series, point } of points) {
      const key = `${endpoint.appName}/${series}`;
      let entry = needed.get(key);
      if (!entry)
        needed.set(key, (entry = { tenantId: endpoint.tenantId, appName: endpoint.appName, series, names: new Set() }));
      for (const name of Object.keys(point.values)) entry.names.add(name);
    }
  }
  const mutations: Mutation[] = [];
  let now: string | undefined;
  for (const { tenantId, appName, series, names } of needed.values()) {
    // Nearly every sample goes to series already defined with all its values: nothing to date or to write for them.
    if (definesAll(findDefinition(ctx, appName, series), names)) continue;
    now ??= ctx.clock.nowIso();
    const mutation = definitionCovering(ctx, tenantId, appName, series, [...names], now);
    if (mutation) mutations.push(mutation);
  }
  return mutations;
}

function definesAll(definition: Definition | undefined, names: ReadonlySet<string>): boolean {
  if (!definition) return false;
  for (const name of names) if (!definition.values.includes(name)) return false;
  return true;
}

function mutationsOf(ctx: EmuContext, batch: readonly Waiting[]): Mutation[] {
  const points: PointBatch = new Map();
  for (const { endpoint, points: sample } of batch)
    for (const { series, point } of sample) addPoint(points, endpoint.endpointId, series, point);
  const mutations = definitionMutations(ctx, batch);
  mutations.push(...appendMutations(points));
  return mutations;
}

/**
 * The samples of every device that arrive within SAMPLE_WINDOW_MS, written in one commit: all are answered once
 * that commit is on disk, as one sample alone would be. If the store refuses the commit's content, each sample is
 * committed alone, so that only the one it cannot store fails; a failed write fails them all, as it would fail
 * each.
 */
class SampleBatches {
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly committing = new Set<Promise<void>>();

  constructor(private readonly ctx: EmuContext) {}

  add(endpoint: Endpoint, points: readonly SamplePoint[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ endpoint, points, resolve, reject });
      if (this.waiting.length >= MAX_BATCH) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), SAMPLE_WINDOW_MS);
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.waiting;
    this.waiting = [];
    const committed = this.commit(batch).finally(() => this.committing.delete(committed));
    this.committing.add(committed);
  }

  /** Commits what waits for the window now, and resolves once every commit begun is done: the store may close. */
  async drain(): Promise<void> {
    if (this.waiting.length > 0) this.flush();
    await Promise.all(this.committing);
  }

  private async commit(batch: readonly Waiting[]): Promise<void> {
    try {
      await this.ctx.store.commit(mutationsOf(this.ctx, batch), batch.length);
    } catch (err) {
      if (batch.length > 1 && err instanceof StoreValueError) {
        await Promise.all(batch.map((one) => this.commit([one])));
        return;
      }
      for (const { reject } of batch) reject(err as Error);
      return;
    }
    for (const { resolve } of batch) resolve();
  }
}

const BATCHES = 'epts:sample-batches';
const batchesOf = (ctx: EmuContext) => runtimeOf(ctx, BATCHES, () => new SampleBatches(ctx));

/** On stop: samples still in their window are committed, not dropped with the store that closes after. */
export async function drainSampleBatches(ctx: EmuContext): Promise<void> {
  await (ctx.runtime.get(BATCHES) as SampleBatches | undefined)?.drain();
}

/**
 * Points from an endpoint's data samples (`dcx`): a series the application does not define yet is defined by
 * its first point, and a value name a definition lacks is added to it, in the same commit as the points. Resolves
 * once they are durable and readable.
 */
export function recordSamplePoints(ctx: EmuContext, endpoint: Endpoint, points: readonly SamplePoint[]): Promise<void> {
  return batchesOf(ctx).add(endpoint, points);
}
