import { ENDPOINTS } from './endpoints.js';
import { ENDPOINT_FILTERS, matchProblem } from './filters.js';

type Collections = Record<string, Record<string, Record<string, unknown>>>;

/** What a record schema cannot say about an imported state: the filter language, and tokens unique per application. */
export function checkEndpointState(collections: Collections): string | undefined {
  for (const [id, filter] of Object.entries(collections[ENDPOINT_FILTERS.name] ?? {})) {
    const problem = matchProblem(filter.match);
    if (problem) return `collections.${ENDPOINT_FILTERS.name}["${id}"]: ${problem}`;
  }
  const tokens = new Map<string, string>();
  for (const [id, endpoint] of Object.entries(collections[ENDPOINTS.name] ?? {})) {
    const key = `${endpoint.appName}\u0000${endpoint.token}`;
    const other = tokens.get(key);
    if (other !== undefined) {
      return (
        `collections.${ENDPOINTS.name}["${id}"]: its token is also the token of endpoint "${other}"; tokens are ` +
        `unique within an application (${endpoint.appName})`
      );
    }
    tokens.set(key, id);
  }
  return undefined;
}
