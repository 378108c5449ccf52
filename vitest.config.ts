import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take a minute or more beside the others: started first, so that none is left running alone at the end.
 * Vitest orders by the last run's durations when it has them, but a fresh clone (CI) has none, and it then starts
 * the largest files first: the bench's smoke run, a short file, came last and ran alone for a minute and a half.
 */
const LONGEST = ['test/bench-smoke.test.ts', 'test/store/crash.test.ts', 'test/ui/dashboard-navigation.test.ts'];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST.findIndex((name) => file.moduleId.endsWith(name));
      return index === -1 ? LONGEST.length : index;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Files run in parallel; every test starts its own emulators on port 0 with their own state. Much of a file's
    // time is spent waiting (child processes, devices, fsync), so three workers on this 2-core machine, not
    // vitest's default of one worker per core less one (which is one here).
    fileParallelism: true,
    maxWorkers: 3,
    // A worker keeps the modules it loaded from one file to the next, rather than loading the emulator's modules again
    // for each of its files: that loading took a fifth of the suite's time. Every file still starts its own
    // emulators and directories, and restores whatever it patches (a spy, a clock).
    isolate: false,
    sequence: { sequencer: LongestFirst },
    // Stored values frozen at every level, not only the top: code that changes a stored record in place fails here.
    env: { PLATFORM_EMU_DEEP_FREEZE: '1' },
  },
});
