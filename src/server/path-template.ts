import { percentDecoded } from './percent-decoding.js';
/**
 * Spec-style path templates (`/endpoints/{endpointId}`): one module for the server's router, the client's
 * resolution of bare paths, and the gateway's KP1 resource matching.
 */

const PARAM = /^\{(\w+)\}$/;

export const segmentsOf = (path: string) => path.split('/').filter(Boolean);

/** A path segment percent-decoded, or as it is when it is not valid percent-encoding. */
export function safeDecode(segment: string): string {
  return percentDecoded(segment) ?? segment;
}

/** `/endpoints/{endpointId}` to express's `/endpoints/:endpointId`. */
export const expressPath = (template: string) => template.replace(/\{(\w+)\}/g, ':$1');

/** The parameter names of a template, in order. */
export const templateParams = (template: string) => segmentsOf(template).flatMap((s) => PARAM.exec(s)?.[1] ?? []);

/** A template as a regular expression over a whole path (a trailing slash allowed). */
export function templatePattern(template: string): RegExp {
  const body = segmentsOf(template)
    .map((segment) => (PARAM.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^/${body}/?$`);
}

/** The parameters a template takes from concrete segments, or undefined when it does not match. */
export function matchTemplate(template: string, segments: readonly string[]): Record<string, string> | undefined {
  const pattern = segmentsOf(template);
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const name = PARAM.exec(pattern[i])?.[1];
    if (name) params[name] = segments[i];
    else if (pattern[i] !== segments[i]) return undefined;
  }
  return params;
}

/** Orders templates so that literal segments win early: `/endpoints/commands` before `/endpoints/{endpointId}`. */
export function bySpecificity(a: string, b: string): number {
  const sa = segmentsOf(a);
  const sb = segmentsOf(b);
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = PARAM.test(sa[i]) ? 1 : 0;
    const pb = PARAM.test(sb[i]) ? 1 : 0;
    if (pa !== pb) return pa - pb;
  }
  return 0;
}
