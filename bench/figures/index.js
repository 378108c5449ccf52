// The one list of figures, in the order they run and print. A figure is a module with a `name` and
// `run(bench)` returning rows made by `measure()` (bench/lib/report.js). Memory comes after reads and
// writes: it compares the shared emulator's memory before and after their runs.
import blobs from './blobs.js';
import cliLatency from './cli-latency.js';
import coldStart from './cold-start.js';
import commandRoundTrip from './command-round-trip.js';
import filters from './filters.js';
import fleet from './fleet.js';
import memory from './memory.js';
import reads from './reads.js';
import testLoop from './test-loop.js';
import timeSeries from './time-series.js';
import tls from './tls.js';
import ui from './ui.js';
import writes from './writes.js';

export const figures = [
  coldStart,
  reads,
  writes,
  commandRoundTrip,
  memory,
  fleet,
  timeSeries,
  blobs,
  testLoop,
  cliLatency,
  filters,
  ui,
  tls,
];
