import { runtimeOf, type EmuContext } from '../../context.js';
import { allSoftware } from './software.js';
import { offersOfApplication, pushChangedOffers } from './rollout.js';

/** setTimeout's longest delay; a later date re-arms when it fires. */
const MAX_DELAY = 2 ** 31 - 1;

interface RolloutTimer {
  timer?: NodeJS.Timeout;
  /** Dates up to here have been acted on. */
  checkedUntil: number;
  stopped: boolean;
}

const timerOf = (ctx: EmuContext) =>
  runtimeOf<RolloutTimer>(ctx, 'otao:rollout-dates', () => ({
    checkedUntil: ctx.clock.nowMs(),
    stopped: false,
  }));

/** Rollout dates of targeted software, by application. */
function rolloutDates(ctx: EmuContext): Array<{ appName: string; at: number }> {
  const dates: Array<{ appName: string; at: number }> = [];
  for (const software of allSoftware(ctx)) {
    if (software.rolloutStrategy !== 'targeted') continue;
    for (const filter of software.filters)
      if (filter.rolloutDate !== undefined)
        dates.push({ appName: software.appName, at: Date.parse(filter.rolloutDate) });
  }
  return dates;
}

/** When a rollout date passes, the endpoints it opens the software to are pushed their new offer. */
function onDue(ctx: EmuContext): void {
  const state = timerOf(ctx);
  const from = state.checkedUntil;
  const now = ctx.clock.nowMs();
  state.checkedUntil = now;
  const apps = new Set(
    rolloutDates(ctx)
      .filter((d) => d.at > from && d.at <= now)
      .map((d) => d.appName),
  );
  for (const appName of apps) pushChangedOffers(ctx, appName, offersOfApplication(ctx, appName, from), now);
  scheduleRolloutDates(ctx);
}

/** Arms one timer for the next rollout date still to come (after every software change, and at start). */
export function scheduleRolloutDates(ctx: EmuContext): void {
  const state = timerOf(ctx);
  clearTimeout(state.timer);
  state.timer = undefined;
  if (state.stopped || ctx.store.isReadOnly) return;
  const now = ctx.clock.nowMs();
  let next = Infinity;
  for (const { at } of rolloutDates(ctx)) if (at > Math.max(now, state.checkedUntil) && at < next) next = at;
  if (next === Infinity) return;
  state.timer = setTimeout(() => onDue(ctx), Math.min(next - now, MAX_DELAY));
  state.timer.unref();
}

/** At start (and after a reset or import): dates already past are history; the next one to come is armed. */
export function startRolloutDates(ctx: EmuContext): void {
  const state = timerOf(ctx);
  state.stopped = false;
  state.checkedUntil = ctx.clock.nowMs();
  scheduleRolloutDates(ctx);
}

export function stopRolloutDates(ctx: EmuContext): void {
  const state = timerOf(ctx);
  state.stopped = true;
  clearTimeout(state.timer);
  state.timer = undefined;
}
