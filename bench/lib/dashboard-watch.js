// Figures 12c/12d: the dashboard open while a fleet runs. Headless Chromium holds two pages, the overview and the
// endpoints page (each in its own tab), both following `/_emu/events` as a user's would; `stop()` tells, per page,
// its long tasks (PerformanceObserver 'longtask': count and ms per minute), how busy its main thread was in all
// (DevTools `Performance.getMetrics` TaskDuration) and the requests it made per minute, and closes the browser.
import { launchChromium } from './chromium.js';
import { measure } from './report.js';

const MINUTE = 60_000;

/** [name, hash, what shows once the page has read what it shows] */
const PAGES = [
  ['overview', '', (page) => page.getByText('Endpoints per application version')],
  ['endpoints', '#/endpoints', (page) => page.getByTestId('endpoints-summary').getByText(/^Endpoints \d/)],
];

/** Runs in each page before its own scripts: every long task of the page, kept for `stop()` to read. */
function observeLongTasks() {
  window.__benchLongTasks = [];
  new PerformanceObserver((list) => {
    for (const task of list.getEntries()) window.__benchLongTasks.push([task.startTime, task.duration]);
  }).observe({ type: 'longtask' });
}

async function taskSeconds(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0;
}

/** One page, opened and read; from `watchFrom()` on it counts its long tasks and the requests it makes. */
async function openPage(browser, url, [name, hash, ready]) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(60_000);
  await page.addInitScript(observeLongTasks);
  const requests = [];
  let counting = false;
  page.on('request', (request) => counting && requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
  await page.goto(`${url}/_emu/ui/${hash}`);
  await ready(page).waitFor();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const watched = { name, page, cdp, requests };
  watched.watchFrom = async () => {
    counting = true;
    watched.since = await page.evaluate(() => performance.now());
    watched.taskSecondsBefore = await taskSeconds(cdp);
  };
  watched.read = async () => {
    counting = false;
    const [now, tasks] = await page.evaluate((since) => {
      const after = window.__benchLongTasks.filter(([start]) => start >= since);
      return [performance.now(), after.map(([, duration]) => duration)];
    }, watched.since);
    const windowMs = now - watched.since;
    const perMinute = (n) => (n * MINUTE) / windowMs;
    const longTaskMs = tasks.reduce((sum, d) => sum + d, 0);
    return {
      name,
      windowMs,
      longTasksPerMinute: perMinute(tasks.length),
      longTaskMsPerMinute: perMinute(longTaskMs),
      longestTaskMs: Math.max(0, ...tasks),
      busyShare: ((await taskSeconds(cdp)) - watched.taskSecondsBefore) / (windowMs / 1000),
      requestsPerMinute: perMinute(requests.length),
      requests: [...new Set(requests)].slice(0, 3),
    };
  };
  return watched;
}

function rows(pages, { devices, commandsPerSecond }) {
  const worst = (key) => pages.reduce((a, b) => (b[key] > a[key] ? b : a));
  const busiest = worst('longTaskMsPerMinute');
  const chattiest = worst('requestsPerMinute');
  const each = (text) => pages.map((p) => `${p.name} ${text(p)}`).join('; ');
  const deviceMessagesPerMinute = (devices + commandsPerSecond) * 60;
  return [
    measure({
      id: '12c',
      name: `dashboard open during the fleet of ${devices}: long tasks per minute (busier of overview, endpoints)`,
      unit: 'ms',
      value: busiest.longTaskMsPerMinute,
      reference: MINUTE,
      referenceName: "a minute of the page's main thread",
      target: { on: 'ratio', op: '<', limit: 0.1 },
      note:
        `${busiest.name} is the busier; ` +
        each(
          (p) =>
            `${p.longTasksPerMinute.toFixed(1)} long tasks/min, ${Math.round(p.longTaskMsPerMinute)} ms/min, longest ` +
            `${Math.round(p.longestTaskMs)} ms, main thread busy ${(p.busyShare * 100).toFixed(1)}% in all`,
        ) +
        `; watched ${(busiest.windowMs / 1000).toFixed(1)} s`,
    }),
    measure({
      id: '12d',
      name: `dashboard open during the fleet of ${devices}: requests per minute (the page that made more)`,
      unit: 'requests/min',
      value: chattiest.requestsPerMinute,
      reference: deviceMessagesPerMinute,
      referenceName: 'device messages per minute (samples and commands)',
      target: { on: 'value', op: '<', limit: 60 },
      note: each(
        (p) => `${p.requestsPerMinute.toFixed(1)}/min${p.requests.length ? ` (${p.requests.join(', ')})` : ''}`,
      ),
    }),
  ];
}

/**
 * Opens the dashboard of the emulator at `url` on the overview and the endpoints page. Resolves with `{ start(),
 * stop(sizes) }`: `start()` begins the watch, `stop()` resolves with the rows 12c/12d. Without Chromium, says so and
 * resolves with undefined (the run then has no rows 12c/12d, as 12b). A figure that fails before calling `stop()`
 * leaves the browser open no longer than `seconds` plus five minutes (an open browser would keep the bench from
 * exiting).
 */
export async function watchDashboard(bench, url, seconds) {
  const browser = await launchChromium(bench, 'figures 12c/12d');
  if (!browser) return undefined;
  const closing = setTimeout(() => browser.close(), (seconds + 300) * 1000).unref();
  const close = () => (clearTimeout(closing), browser.close());
  try {
    const pages = [];
    for (const page of PAGES) pages.push(await openPage(browser, url, page));
    return {
      async start() {
        for (const page of pages) await page.watchFrom();
      },
      async stop(sizes) {
        try {
          const figures = [];
          for (const page of pages) figures.push(await page.read());
          return rows(figures, sizes);
        } finally {
          await close();
        }
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}
