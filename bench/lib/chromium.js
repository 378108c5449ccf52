// Headless Chromium for the dashboard's figures (12b-12d): the system's (`/usr/bin/chromium`, or `CHROMIUM_PATH`),
// driven by playwright-core, with flags that work as root.
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Headless, and flags that work as root; playwright gives it a fresh profile (--user-data-dir) itself. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The browser, or undefined (logged as `<figures> skipped`) where this machine has no Chromium. */
export async function launchChromium(bench, figures) {
  if (!existsSync(CHROMIUM)) {
    bench.log(`${figures} skipped: no Chromium at ${CHROMIUM}`);
    return undefined;
  }
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
  });
}
