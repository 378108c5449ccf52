import type { Clock } from './context.js';

/**
 * `real`: the machine's time; `frozen`: stands still until set or advanced; `offset`: runs, shifted by a fixed amount.
 */
export type ClockMode = 'real' | 'frozen' | 'offset';

export interface ClockState {
  now: Date;
  mode: ClockMode;
}

/**
 * The emulator's clock: real time until a test moves it. Every date a service writes and every deadline it keeps
 * reads `now()`; each move is announced through `changed`, which resolves once the work that became due is done.
 */
export class VirtualClock implements Clock {
  private mode: ClockMode = 'real';
  /** Frozen: the time it stands at. Offset: milliseconds added to the machine's time. */
  private value = 0;

  constructor(private readonly changed: (state: ClockState) => Promise<void> = async () => undefined) {}

  nowMs(): number {
    if (this.mode === 'real') return Date.now();
    return this.mode === 'frozen' ? this.value : Date.now() + this.value;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  nowIso(): string {
    return this.now().toISOString();
  }

  state(): ClockState {
    return { now: this.now(), mode: this.mode };
  }

  /** Jumps to `at`: frozen there (default), or running on from there. */
  set(at: Date, frozen = true): Promise<void> {
    const ms = at.getTime();
    if (!Number.isFinite(ms)) throw new RangeError('Not a valid date.');
    this.mode = frozen ? 'frozen' : 'offset';
    this.value = frozen ? ms : ms - Date.now();
    return this.announce();
  }

  /** Moves forward by `ms`; a real clock starts running with an offset, a frozen one stays frozen. */
  advance(ms: number): Promise<void> {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError('The clock only advances by a positive duration.');
    if (this.mode === 'frozen') this.value += ms;
    else {
      this.value = (this.mode === 'offset' ? this.value : 0) + ms;
      this.mode = 'offset';
    }
    return this.announce();
  }

  /** Stops at the current time, or lets a frozen clock run on from where it stands. */
  freeze(frozen: boolean): Promise<void> {
    return this.set(this.now(), frozen);
  }

  real(): Promise<void> {
    this.mode = 'real';
    this.value = 0;
    return this.announce();
  }

  private announce(): Promise<void> {
    return this.changed(this.state());
  }
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const ISO =
  /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;
const SHORT = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;

/**
 * A duration in milliseconds: ISO 8601 (`PT1H`, `P30D`, `P1DT12H`, `P2W`) or short (`90s`, `1h`, `721h`, `1h30m`,
 * `500ms`, `2d`). Years and months are refused: they have no fixed length. Throws a sentence naming the forms.
 */
export function parseDuration(text: string): number {
  const value = text.trim();
  const iso = ISO.exec(value);
  if (iso && /\d/.test(value)) {
    const [, w, d, h, m, s] = iso.map((part) => Number(part ?? 0));
    return Math.round(w * UNITS.w + d * UNITS.d + h * UNITS.h + m * UNITS.m + s * UNITS.s);
  }
  if (/^P/i.test(value) && /[YM]/i.test(value.slice(1).split(/T/i)[0])) {
    throw new RangeError(
      `"${text}": years and months have no fixed length; write the duration in days or weeks (P30D).`,
    );
  }
  let total = 0;
  let end = 0;
  SHORT.lastIndex = 0;
  for (let match = SHORT.exec(value); match; match = SHORT.exec(value)) {
    total += Number(match[1]) * UNITS[match[2]];
    end = SHORT.lastIndex;
  }
  if (value === '' || end !== value.length) {
    throw new RangeError(
      `"${text}" is not a duration: use ISO 8601 (PT1H, P30D) or a short form (90s, 1h, 721h, 1h30m, 500ms, 2d).`,
    );
  }
  return Math.round(total);
}
