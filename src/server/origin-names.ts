/** `http://Example.test:80/` → `http://example.test`; undefined for anything that is not a bare http(s) origin. */
export function normalizedOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== ''))
    return undefined;
  return url.origin;
}

/** Checks `allowOrigins` (option, `--allow-origin`, `PLATFORM_EMU_ALLOW_ORIGIN`): each a bare origin such as `https://app.example.test:3000`. */
export function checkAllowOrigins(origins: readonly string[]): string[] {
  return origins.map((origin) => {
    const normalized = origin === 'null' ? 'null' : normalizedOrigin(origin.trim());
    if (normalized === undefined) {
      throw new RangeError(
        `allowOrigins: ${JSON.stringify(origin)} is not an origin; give scheme, host and port only, for example http://app.example.test:3000.`,
      );
    }
    return normalized;
  });
}
