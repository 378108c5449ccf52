/** What a response template can refer to: `{{payload.setpoint}}`, `{{commandId}}`, `{{now}}`... */
export interface TemplateContext {
  payload: unknown;
  commandId: number;
  commandType: string;
  token: string;
  appVersion: string;
  endpointId?: string;
  now: string;
}

const WHOLE = /^\{\{\s*([\w.$-]+)\s*\}\}$/;
const EMBEDDED = /\{\{\s*([\w.$-]+)\s*\}\}/g;

/** `payload.items.0.name` in the context; undefined when any step is missing. */
function lookup(context: TemplateContext, path: string): unknown {
  let value: unknown = context;
  for (const step of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/**
 * Renders a response template. A string that is exactly one placeholder becomes the value itself (a number
 * stays a number, an object an object; a missing value becomes null); placeholders inside a longer string are
 * replaced by text (JSON for non-strings, nothing for a missing value). Objects and arrays render deeply.
 */
export function renderTemplate(template: unknown, context: TemplateContext): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE.exec(template);
    if (whole) return lookup(context, whole[1]) ?? null;
    return template.replace(EMBEDDED, (_match, path: string) => {
      const value = lookup(context, path);
      if (value === undefined || value === null) return '';
      return typeof value === 'string' ? value : JSON.stringify(value);
    });
  }
  if (Array.isArray(template)) return template.map((item) => renderTemplate(item, context));
  if (typeof template === 'object' && template !== null) {
    return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, renderTemplate(value, context)]));
  }
  return template;
}
