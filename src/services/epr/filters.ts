import { isDeepStrictEqual } from 'node:util';
import type { EmuContext } from '../../context.js';
import type { StoredRecord } from '../../store/index.js';

export const ENDPOINT_FILTERS = 'endpoint-filters';

/**
 * An endpoint filter: a named predicate over endpoint metadata, per application (the spec never says how
 * filters are defined; docs/fixtures.md documents this format). Only ACTIVE filters apply.
 */
export interface EndpointFilter extends StoredRecord {
  tenantId: string;
  applicationName: string;
  filterId: string;
  status: 'ACTIVE' | 'INACTIVE';
  description?: string;
  /** Metadata key to a value (equality) or to one operator object: `{ "$in": [...] }`, `{ "$exists": true }`, ... */
  match: Record<string, unknown>;
}

type Operator = '$eq' | '$ne' | '$in' | '$nin' | '$exists' | '$gt' | '$gte' | '$lt' | '$lte' | '$regex';
export const OPERATORS: Operator[] = ['$eq', '$ne', '$in', '$nin', '$exists', '$gt', '$gte', '$lt', '$lte', '$regex'];

function isOperator(value: unknown): value is Partial<Record<Operator, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0 && Object.keys(value).every((k) => OPERATORS.includes(k as Operator));
}

function operandProblem(op: Operator, operand: unknown): string | undefined {
  switch (op) {
    case '$eq':
    case '$ne':
      return undefined;
    case '$in':
    case '$nin':
      return Array.isArray(operand) ? undefined : 'must be an array of values';
    case '$exists':
      return typeof operand === 'boolean' ? undefined : 'must be true or false';
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return typeof operand === 'number' || typeof operand === 'string' ? undefined : 'must be a number or a string';
    case '$regex':
      if (typeof operand !== 'string') return 'must be a string (a regular expression)';
      try {
        new RegExp(operand);
        return undefined;
      } catch (err) {
        return `is not a valid regular expression (${(err as Error).message})`;
      }
  }
}

/**
 * What is wrong with a filter's `match` (an object of metadata keys to values or operator objects, each
 * operator with an operand of its kind), or undefined when it can be evaluated. Fixtures and imports check it,
 * so that a stored filter never fails when an endpoint is matched.
 */
export function matchProblem(match: unknown): string | undefined {
  if (typeof match !== 'object' || match === null || Array.isArray(match)) return 'match must be an object of metadata keys to conditions';
  for (const [key, condition] of Object.entries(match)) {
    if (!isOperator(condition)) continue;
    for (const [op, operand] of Object.entries(condition)) {
      const problem = operandProblem(op as Operator, operand);
      if (problem) return `match.${key}.${op} ${problem}; got ${JSON.stringify(operand)}`;
    }
  }
  return undefined;
}

function test(condition: unknown, present: boolean, value: unknown): boolean {
  if (!isOperator(condition)) return present && isDeepStrictEqual(value, condition);
  return Object.entries(condition).every(([op, operand]) => {
    switch (op as Operator) {
      case '$eq': return present && isDeepStrictEqual(value, operand);
      case '$ne': return !present || !isDeepStrictEqual(value, operand);
      case '$in': return present && Array.isArray(operand) && operand.some((o) => isDeepStrictEqual(o, value));
      case '$nin': return !present || !(Array.isArray(operand) && operand.some((o) => isDeepStrictEqual(o, value)));
      case '$exists': return present === Boolean(operand);
      case '$gt': return present && typeof value === typeof operand && (value as number) > (operand as number);
      case '$gte': return present && typeof value === typeof operand && (value as number) >= (operand as number);
      case '$lt': return present && typeof value === typeof operand && (value as number) < (operand as number);
      case '$lte': return present && typeof value === typeof operand && (value as number) <= (operand as number);
      case '$regex': return present && typeof value === 'string' && new RegExp(String(operand)).test(value);
    }
  });
}

export function filterMatches(filter: EndpointFilter, metadata: Record<string, unknown> | undefined): boolean {
  const data = metadata ?? {};
  return Object.entries(filter.match).every(([key, condition]) => test(condition, Object.hasOwn(data, key), data[key]));
}

export function setupFilterIndexes(ctx: EmuContext): void {
  ctx.store.defineIndex(ENDPOINT_FILTERS, 'app', (f) => f.applicationName as string);
}

export function filtersOfApplication(ctx: EmuContext, applicationName: string): EndpointFilter[] {
  return ctx.store.lookup<EndpointFilter>(ENDPOINT_FILTERS, 'app', applicationName);
}

export function findFilter(ctx: EmuContext, tenantId: string, filterId: string): EndpointFilter[] {
  return [...ctx.store.values<EndpointFilter>(ENDPOINT_FILTERS)].filter((f) => f.tenantId === tenantId && f.filterId === filterId);
}

/** The ids of the active filters of the endpoint's application that its metadata matches. */
export function matchingFilterIds(ctx: EmuContext, applicationName: string, metadata: Record<string, unknown> | undefined): string[] {
  return filtersOfApplication(ctx, applicationName)
    .filter((f) => f.status === 'ACTIVE' && filterMatches(f, metadata))
    .map((f) => f.filterId)
    .sort();
}
