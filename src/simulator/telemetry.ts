import { SimulatorOptionsError } from './errors.js';

/** Produces the next value of one field of a data sample. */
type Generator = () => unknown;

/** Makes one data sample: a parsed telemetry spec, or a function of your own. */
export type SampleMaker = () => Record<string, unknown>;

const NAME = /^[a-zA-Z0-9_]+$/;
const RANGE = /^(-?\d+(?:\.\d+)?)\.\.(-?\d+(?:\.\d+)?)$/;

function literal(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const decimalsOf = (text: string) => (text.includes('.') ? text.split('.')[1].length : 0);

function generator(name: string, text: string): Generator {
  const range = RANGE.exec(text);
  if (range) {
    const [low, high] = [Number(range[1]), Number(range[2])];
    if (low > high)
      throw new SimulatorOptionsError(`${name}: the range ${text} goes down; write the lower bound first.`);
    const decimals = Math.max(decimalsOf(range[1]), decimalsOf(range[2]));
    const factor = 10 ** decimals;
    return () => Math.round((low + Math.random() * (high - low)) * factor) / factor;
  }
  // `1..`, `..5`, `a..b`: meant as a range, never a constant string sent forever (a JSON string "a..b" is one).
  if (text.includes('..') && !text.startsWith('"')) {
    throw new SimulatorOptionsError(
      `${name}: ${text} is not a range; a range is <low>..<high> with two numbers, for example ${name}=20..25 ` +
        `or ${name}=-5.5..5.5.`,
    );
  }
  const sequence = /^seq(?::(-?\d+))?$/.exec(text);
  if (sequence) {
    let next = Number(sequence[1] ?? 1);
    return () => next++;
  }
  if (text.includes('|')) {
    const choices = text.split('|').map(literal);
    return () => choices[Math.floor(Math.random() * choices.length)];
  }
  const constant = literal(text);
  return () => constant;
}

/**
 * Parses `name=generator,...`: `20..25` (random in the range, as many decimals as the bounds have),
 * `a|b|c` (random choice), `seq` or `seq:<start>` (counter), anything else a constant (JSON if it parses).
 * Each sample gets `timestamp` (epoch milliseconds, as the platform's tutorials send) unless the spec names it.
 */
export function parseTelemetrySpec(spec: string): SampleMaker {
  const fields = spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const equals = part.indexOf('=');
      if (equals < 1)
        throw new SimulatorOptionsError(`"${part}" is not name=generator (for example temperature=20..25).`);
      const name = part.slice(0, equals).trim();
      if (!NAME.test(name))
        throw new SimulatorOptionsError(`"${name}" is not a valid field name (letters, digits, underscore).`);
      return [name, generator(name, part.slice(equals + 1).trim())] as const;
    });
  if (fields.length === 0)
    throw new SimulatorOptionsError('expected at least one name=generator, for example temperature=20..25.');
  const namesTimestamp = fields.some(([name]) => name === 'timestamp');
  return () => {
    const sample: Record<string, unknown> = Object.fromEntries(fields.map(([name, next]) => [name, next()]));
    if (!namesTimestamp) sample.timestamp = Date.now();
    return sample;
  };
}
