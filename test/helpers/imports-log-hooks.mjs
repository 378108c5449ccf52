import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(process.env.IMPORTS_LOG, `${resolved.url}\n`);
  return resolved;
}
