import { javaString, type Value } from '../painless/values.js';
import type { IngestDocument } from './document.js';

/**
 * Template snippets of processor options (`"value": "{{os}}"`, `"field": "{{_ingest.timestamp}}"`): the part of
 * mustache the search engine's pipelines use. `{{x}}` escapes the value for the processor's `media_type` (JSON
 * string escaping by default, as the search engine does: a `\` becomes `\\`), `{{{x}}}` and `{{& x}}` insert it as
 * is. A missing field renders as nothing. Sections, partials and delimiter changes are refused by name.
 */
export type MediaType = 'application/json' | 'text/plain' | 'application/x-www-form-urlencoded';
export const MEDIA_TYPES: readonly MediaType[] = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
];

type Part = string | { path: string; raw: boolean };

export interface Template {
  /** False for a plain string: it renders as itself. */
  readonly isTemplate: boolean;
  render(doc: IngestDocument): string;
}

export class TemplateError extends Error {}

const TAG = /\{\{(\{?)([\s\S]*?)\}\}(\}?)/g;

function formUrlEncoded(text: string): string {
  return [...new TextEncoder().encode(text)]
    .map((byte) => {
      const c = String.fromCharCode(byte);
      if (/[A-Za-z0-9.*_-]/.test(c)) return c;
      return c === ' ' ? '+' : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

const ESCAPE: Record<MediaType, (text: string) => string> = {
  'application/json': (text) => JSON.stringify(text).slice(1, -1),
  'text/plain': (text) => text,
  'application/x-www-form-urlencoded': formUrlEncoded,
};

const render = (v: Value | undefined) => (v === undefined || v === null ? '' : javaString(v));

export function compileTemplate(text: string, mediaType: MediaType = 'application/json'): Template {
  if (!text.includes('{{')) return { isTemplate: false, render: () => text };
  const parts: Part[] = [];
  let last = 0;
  for (const match of text.matchAll(TAG)) {
    const [whole, open, body, close] = match;
    if (match.index! > last) parts.push(text.slice(last, match.index));
    last = match.index! + whole.length;
    const triple = open === '{';
    if (triple && close !== '}') throw new TemplateError(`the template tag ${whole} is not closed with }}}`);
    let name = body.trim();
    const sigil = triple ? '' : name[0];
    if (sigil === '!') continue;
    if (
      sigil === '#' ||
      sigil === '^' ||
      sigil === '/' ||
      sigil === '>' ||
      sigil === '=' ||
      sigil === '<' ||
      sigil === '$'
    ) {
      throw new TemplateError(
        `the template tag {{${body}}} (sections, partials and delimiters) is not supported by the emulator; ` +
          `use {{field}} or {{{field}}}`,
      );
    }
    const raw = triple || sigil === '&';
    if (sigil === '&') name = name.slice(1).trim();
    if (!/^[^\s{}]+$/.test(name)) throw new TemplateError(`the template tag ${whole} does not name a field`);
    parts.push({ path: name, raw });
    if (!triple && close === '}') parts.push('}');
  }
  if (last < text.length) parts.push(text.slice(last));
  if (parts.some((p) => typeof p === 'string' && p.includes('{{')))
    throw new TemplateError(`a template tag {{ in ${JSON.stringify(text)} is not closed with }}`);
  const escape = ESCAPE[mediaType];
  return {
    isTemplate: true,
    render: (doc) =>
      parts
        .map((p) =>
          typeof p === 'string'
            ? p
            : p.raw
              ? render(doc.templateValue(p.path))
              : escape(render(doc.templateValue(p.path))),
        )
        .join(''),
  };
}
