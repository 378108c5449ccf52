import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import type { RE2JS } from 're2js';
import { runtimeOf, type EmuContext } from '../../context.js';
import type { FromSchema } from '../../contract.js';
import { collection, isPlainObject } from '../../store/index.js';
import type { endpointFilterRecord } from './schemas.js';

export const ENDPOINT_FILTERS = collection<EndpointFilter>('endpoint-filters').index('app', (f) => f.applicationName);

/**
 * An endpoint filter: a named predicate over endpoint metadata, per application (the spec never says how
 * filters are defined; docs/fixtures.md documents this format). Only ACTIVE filters apply.
 */
export type EndpointFilter = FromSchema<typeof endpointFilterRecord>;

type Operator = '$eq' | '$ne' | '$in' | '$nin' | '$exists' | '$gt' | '$gte' | '$lt' | '$lte' | '$regex';
export const OPERATORS: Operator[] = ['$eq', '$ne', '$in', '$nin', '$exists', '$gt', '$gte', '$lt', '$lte', '$regex'];

function isOperator(value: unknown): value is Partial<Record<Operator, unknown>> {
  return (
    isPlainObject(value) &&
    Object.keys(value).length > 0 &&
    Object.keys(value).every((k) => OPERATORS.includes(k as Operator))
  );
}

/** Longest `$regex` pattern a filter may hold (docs/fixtures.md). */
export const MAX_REGEX_LENGTH = 256;
const compiledPatterns = new Map<string, RE2JS>();

/*
 * re2js (one 260 KB module) is required when the first pattern is compiled, not when this module loads: a start whose
 * filters have no `$regex` (the package's fixtures) never loads it. Synchronously (its CommonJS build), so that
 * matching stays synchronous.
 */
const require = createRequire(import.meta.url);
let engine: typeof RE2JS | undefined;
const compile = (pattern: string): RE2JS =>
  (engine ??= (require('re2js') as { RE2JS: typeof RE2JS }).RE2JS).compile(pattern);

/**
 * A `$regex` runs on RE2 (re2js, pure JavaScript): time linear in the value's length whatever the pattern, so that
 * no pattern an import or a fixture plants can stall the emulator. Compiled once per pattern; patterns are checked
 * (`matchProblem`) before a filter is stored.
 */
function regexOf(pattern: string): RE2JS {
  let regex = compiledPatterns.get(pattern);
  if (!regex) {
    if (compiledPatterns.size >= 1_000) compiledPatterns.clear();
    compiledPatterns.set(pattern, (regex = compile(pattern)));
  }
  return regex;
}

function regexProblem(operand: unknown): string | null {
  if (typeof operand !== 'string') return 'must be a string';
  if (operand.length > MAX_REGEX_LENGTH) return `is longer than ${MAX_REGEX_LENGTH} characters`;
  try {
    compile(operand);
  } catch (err) {
    return (
      `is not a valid regular expression for the emulator's linear-time engine (RE2 syntax: no lookarounds, no ` +
      `backreferences): ${(err as Error).message}`
    );
  }
  return null;
}

const OPERAND_PROBLEMS: Record<Operator, (operand: unknown) => string | null> = {
  $eq: () => null,
  $ne: () => null,
  $in: (o) => (Array.isArray(o) ? null : 'must be an array'),
  $nin: (o) => (Array.isArray(o) ? null : 'must be an array'),
  $exists: (o) => (typeof o === 'boolean' ? null : 'must be true or false'),
  $gt: (o) => (typeof o === 'number' || typeof o === 'string' ? null : 'must be a number or a string'),
  $gte: (o) => (typeof o === 'number' || typeof o === 'string' ? null : 'must be a number or a string'),
  $lt: (o) => (typeof o === 'number' || typeof o === 'string' ? null : 'must be a number or a string'),
  $lte: (o) => (typeof o === 'number' || typeof o === 'string' ? null : 'must be a number or a string'),
  $regex: regexProblem,
};

/** Why a filter's `match` cannot be stored, or null: unknown operators and bad operands are refused up front. */
export function matchProblem(match: unknown): string | null {
  if (!isPlainObject(match)) return 'match must be a JSON object of metadata keys';
  for (const [key, condition] of Object.entries(match)) {
    const operators = isPlainObject(condition) ? Object.keys(condition) : [];
    if (!operators.some((k) => k.startsWith('$'))) continue;
    for (const op of operators) {
      if (!OPERATORS.includes(op as Operator))
        return `match.${key} has an unknown operator ${op}; operators: ${OPERATORS.join(', ')}`;
      const problem = OPERAND_PROBLEMS[op as Operator]((condition as Record<string, unknown>)[op]);
      if (problem) return `match.${key}.${op} ${problem}`;
    }
  }
  return null;
}

/** One condition of a filter's `match`, on the metadata key's presence and value. */
type Test = (present: boolean, value: unknown) => boolean;

const isPrimitive = (value: unknown) => value === null || typeof value !== 'object';
/**
 * Deep equality; for a primitive operand `Object.is`, which is what isDeepStrictEqual decides there, without its cost.
 */
const equalTo = (operand: unknown): ((value: unknown) => boolean) =>
  isPrimitive(operand) ? (value) => Object.is(value, operand) : (value) => isDeepStrictEqual(value, operand);
const inList = (operand: unknown): ((value: unknown) => boolean) => {
  const each = (Array.isArray(operand) ? operand : []).map(equalTo);
  return (value) => each.some((equal) => equal(value));
};

function operatorTest(op: Operator, operand: unknown): Test {
  switch (op) {
    case '$eq': {
      const equal = equalTo(operand);
      return (present, value) => present && equal(value);
    }
    case '$ne': {
      const equal = equalTo(operand);
      return (present, value) => !present || !equal(value);
    }
    case '$in': {
      const within = inList(operand);
      return (present, value) => present && within(value);
    }
    case '$nin': {
      const within = inList(operand);
      return (present, value) => !present || !within(value);
    }
    case '$exists': {
      const wanted = Boolean(operand);
      return (present) => present === wanted;
    }
    case '$gt':
      return (present, value) => present && typeof value === typeof operand && (value as number) > (operand as number);
    case '$gte':
      return (present, value) => present && typeof value === typeof operand && (value as number) >= (operand as number);
    case '$lt':
      return (present, value) => present && typeof value === typeof operand && (value as number) < (operand as number);
    case '$lte':
      return (present, value) => present && typeof value === typeof operand && (value as number) <= (operand as number);
    case '$regex': {
      const regex = regexOf(String(operand));
      return (present, value) => present && typeof value === 'string' && regex.matcher(value).find();
    }
  }
}

function conditionTest(condition: unknown): Test {
  if (!isOperator(condition)) {
    const equal = equalTo(condition);
    return (present, value) => present && equal(value);
  }
  const tests = Object.entries(condition).map(([op, operand]) => operatorTest(op as Operator, operand));
  return (present, value) => tests.every((test) => test(present, value));
}

type Predicate = (metadata: Record<string, unknown>) => boolean;
/** Filter records are frozen and replaced on every change, so a predicate compiled once per record stays right. */
const predicates = new WeakMap<EndpointFilter, Predicate>();

function predicateOf(filter: EndpointFilter): Predicate {
  let predicate = predicates.get(filter);
  if (!predicate) {
    const conditions = Object.entries(filter.match).map(([key, condition]) => [key, conditionTest(condition)] as const);
    predicate = (data) => conditions.every(([key, test]) => test(Object.hasOwn(data, key), data[key]));
    predicates.set(filter, predicate);
  }
  return predicate;
}

export function filterMatches(filter: EndpointFilter, metadata: Record<string, unknown> | undefined): boolean {
  return predicateOf(filter)(metadata ?? {});
}

export function filtersOfApplication(ctx: EmuContext, applicationName: string): EndpointFilter[] {
  return ENDPOINT_FILTERS.lookup(ctx, 'app', applicationName);
}

export function findFilter(ctx: EmuContext, tenantId: string, filterId: string): EndpointFilter[] {
  return [...ENDPOINT_FILTERS.values(ctx)].filter((f) => f.tenantId === tenantId && f.filterId === filterId);
}

interface ActiveFilters {
  version: string;
  filters: ReadonlyArray<{ filterId: string; matches: Predicate }>;
  /**
   * The ids each metadata object matched. Metadata is never changed in place (a write stores a new object), so an
   * endpoint read again while neither its metadata nor the filters changed is answered without running the filters:
   * a list with `include=filters` that is read again and again, as a dashboard or a script does (figure 11a).
   */
  matched: WeakMap<object, readonly string[]>;
}

/** The application's active filters in the order of their ids, once per change of the filters. */
function activeFiltersOf(ctx: EmuContext, applicationName: string): ActiveFilters {
  const cache = runtimeOf(ctx, 'epr:active-filters', () => new Map<string, ActiveFilters>());
  // The count guards the one case where a revision repeats: a replaced state without filters (revision 0 again).
  const version = `${ENDPOINT_FILTERS.rev(ctx)}:${ENDPOINT_FILTERS.count(ctx)}`;
  const hit = cache.get(applicationName);
  if (hit?.version === version) return hit;
  const filters = filtersOfApplication(ctx, applicationName)
    .filter((f) => f.status === 'ACTIVE')
    .sort((a, b) => (a.filterId < b.filterId ? -1 : a.filterId > b.filterId ? 1 : 0))
    .map((f) => ({ filterId: f.filterId, matches: predicateOf(f) }));
  const active = { version, filters, matched: new WeakMap() };
  cache.set(applicationName, active);
  return active;
}

/** The ids of the active filters of the endpoint's application that its metadata matches, in the order of the ids. */
export function matchingFilterIds(
  ctx: EmuContext,
  applicationName: string,
  metadata: Record<string, unknown> | undefined,
): readonly string[] {
  const active = activeFiltersOf(ctx, applicationName);
  const known = metadata && active.matched.get(metadata);
  if (known) return known;
  const data = metadata ?? {};
  const ids: string[] = [];
  for (const filter of active.filters) if (filter.matches(data)) ids.push(filter.filterId);
  Object.freeze(ids);
  if (metadata) active.matched.set(metadata, ids);
  return ids;
}
