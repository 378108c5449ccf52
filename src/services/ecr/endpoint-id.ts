import { badRequest } from '../../server/errors.js';

/**
 * The registry refuses `.` and `..` as endpoint ids with 400 (issue 28), extending spec 2's endpointId pattern
 * (letters, digits and `.`, `_`, `~`, `-`: "URL-unreserved characters only"): alone, these two are dot segments,
 * which a client removes from a path before it sends it (RFC 3986, 5.2.4), so `PUT /endpoints/../app-versions/{name}`
 * would reach the version's default configuration `PUT /app-versions/{name}`. Registration refuses them too
 * (`ID_PATTERN`), so no endpoint has one; the 400 tells the caller that sent one as is (percent-encoded,
 * `curl --path-as-is`) why.
 */
export function checkEndpointId(endpointId: string): string {
  if (endpointId === '.' || endpointId === '..') {
    throw badRequest(
      `Invalid endpoint id "${endpointId}": an endpoint id is never "." or ".." (they are path segments of their ` +
        `own, which clients remove from a path: /endpoints/../app-versions/{name} is sent as /app-versions/{name}, ` +
        `the version's default configuration).`,
    );
  }
  return endpointId;
}
