import type { Request } from 'express';
import type { QueryParam } from '../../contract.js';
import { pageNumberParams, paginateByPage } from '../../server/pagination.js';
import { queryEnum } from '../../server/params.js';

const DEFAULT_PAGE_SIZE = 10;

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  return typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
}

const missing = (value: unknown) => (value === undefined || value === null ? 1 : 0);

/**
 * `{ data, count, page, pageSize }` of the identity and access manager's lists: sorted by `sort` (one of the
 * record's fields, default `id`) in `sortOrder` (default `desc`), then one page. `count` is every matching record,
 * `pageSize` the number returned (spec 3: "returned elements").
 */
export function listAnswer<T extends Record<string, unknown>>(
  req: Request,
  records: T[],
  sortable: readonly string[],
  present: (record: T) => unknown,
) {
  const sort = queryEnum(req, 'sort', sortable) ?? 'id';
  const descending = (queryEnum(req, 'sortOrder', ['asc', 'desc'] as const) ?? 'desc') === 'desc';
  const direction = descending ? -1 : 1;
  // Records without the field come last either way.
  const sorted = [...records].sort(
    (a, b) => missing(a[sort]) - missing(b[sort]) || compare(a[sort], b[sort]) * direction || compare(a.id, b.id),
  );
  const page = paginateByPage(req, sorted, DEFAULT_PAGE_SIZE);
  return { data: page.items.map(present), count: page.total, page: page.page, pageSize: page.items.length };
}

export function listParams(sortable: readonly string[]): QueryParam[] {
  return [
    ...pageNumberParams(DEFAULT_PAGE_SIZE),
    { name: 'sort', description: `${sortable.join(', ')}; default id` },
    { name: 'sortOrder', description: 'asc or desc; default desc', schema: { enum: ['asc', 'desc'] } },
  ];
}
