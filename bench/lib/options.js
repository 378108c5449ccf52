/**
 * The command line of `npm run bench` and the three sizes it runs at.
 * full: the sizes and durations (at most ten minutes on two cores); quick: same state, short runs;
 * smoke: tiny state and a few requests per run, for the test that checks the harness completes.
 * Load runs repeat for `rounds` rounds, interleaved across the servers compared (figures take medians);
 * the write and round-trip counts are per run, after a warm-up at the start of the same run
 * (`warmupSeconds` of a time-bound run, `warmupRequests` of a count-bound one). The sizes of figures 2c and 6-12
 * (`hugeEndpoints`, `fleet`, `series`, `blobBytes`, `loop`, `cliRuns`, `filterEndpoints`, `paints`) are the in
 * full and quick runs; full keeps under ten minutes on two cores, quick about two. `tlsFleet`: the fleet of 1,000
 * runs again over MQTT over TLS (6i-6l; full and quick, not smoke). The fleet of 10,000 (6e-6h,
 * `BIG_FLEET`) runs only when asked for (`--big-fleet`): where it overloads the emulator it alone takes the machine for
 * many minutes.
 */
const PROFILES = {
  full: {
    endpoints: 10_000,
    commands: 100_000,
    coldStarts: 8,
    rounds: 3,
    readSeconds: 3,
    warmupSeconds: 1,
    warmupRequests: 500,
    settleSeconds: 3,
    singleWrites: 1_000,
    concurrentWrites: 4_000,
    jsonServerWrites: 300,
    roundTrips: 700,
    loadTimeoutSeconds: 60,
    hugeEndpoints: 100_000,
    fleet: { devices: 1_000, seconds: 60, commandsPerSecond: 10, warmupSeconds: 2 },
    tlsFleet: true,
    series: { endpoints: 10_000, points: 1_000_000, coldStarts: 3 },
    blobBytes: 100 * 1024 * 1024,
    loop: { endpoints: 10_000, starts: 10, resets: 10, parallel: 8, parallelRounds: 5 },
    cliRuns: 8,
    paints: 5,
    filterEndpoints: 24_000,
  },
  quick: {
    endpoints: 10_000,
    commands: 100_000,
    coldStarts: 3,
    rounds: 1,
    readSeconds: 1,
    warmupSeconds: 1,
    warmupRequests: 200,
    settleSeconds: 2,
    singleWrites: 400,
    concurrentWrites: 1_500,
    jsonServerWrites: 100,
    roundTrips: 200,
    loadTimeoutSeconds: 20,
    hugeEndpoints: 100_000,
    fleet: { devices: 1_000, seconds: 10, commandsPerSecond: 10, warmupSeconds: 2 },
    tlsFleet: true,
    series: { endpoints: 10_000, points: 1_000_000, coldStarts: 1 },
    blobBytes: 100 * 1024 * 1024,
    loop: { endpoints: 10_000, starts: 5, resets: 5, parallel: 8, parallelRounds: 3 },
    cliRuns: 3,
    paints: 5,
    filterEndpoints: 24_000,
  },
  smoke: {
    endpoints: 100,
    commands: 1_000,
    coldStarts: 1,
    rounds: 1,
    readAmount: 200,
    warmupSeconds: 0,
    warmupRequests: 0,
    settleSeconds: 0.2,
    singleWrites: 50,
    concurrentWrites: 200,
    jsonServerWrites: 50,
    roundTrips: 20,
    loadTimeoutSeconds: 20,
    hugeEndpoints: 200,
    fleet: { devices: 10, seconds: 2, commandsPerSecond: 5, warmupSeconds: 0 },
    series: { endpoints: 100, points: 1_000, coldStarts: 1 },
    blobBytes: 1024 * 1024,
    loop: { endpoints: 100, starts: 1, resets: 1, parallel: 2, parallelRounds: 1 },
    cliRuns: 1,
    paints: 1,
    filterEndpoints: 240,
  },
};

/** Figures 6e-6h, with `--big-fleet`: 10,000 connections, a minute of samples, the count; first the same against the floor. */
const BIG_FLEET = { devices: 10_000, seconds: 60, commandsPerSecond: 100, warmupSeconds: 5 };

const USAGE = `Usage: npm run bench -- [--quick | --smoke] [--only <figure,...>] [--big-fleet] [--results <file>]

  --quick           short runs at the full state sizes (about two minutes)
  --smoke           tiny state, a few requests per run (checks the harness; figures mean nothing)
  --only <names>    run only these figures (comma-separated; names below)
  --big-fleet       add the fleet of 10,000 devices (figures 6e-6h, after the same fleet against a bare broker, the
                    floor; a core that serves a sample in well under 100 µs)
  --results <file>  where to write the JSON results (default bench/results/latest.json)`;

export function parseOptions(argv) {
  const options = { profileName: 'full', only: undefined, results: undefined, bigFleet: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') options.profileName = 'quick';
    else if (arg === '--smoke') options.profileName = 'smoke';
    else if (arg === '--only') options.only = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (arg === '--results') options.results = argv[++i];
    else if (arg === '--big-fleet') options.bigFleet = true;
    else if (arg === '--help' || arg === '-h') return { help: USAGE };
    else return { error: `Unknown option ${arg}.\n\n${USAGE}` };
  }
  const profile = PROFILES[options.profileName];
  return { ...options, profile: options.bigFleet ? { ...profile, bigFleet: BIG_FLEET } : profile };
}
