import { describe, expect, it } from 'vitest';
// The bench is plain JavaScript (ESM), imported as is.
import { settlesWithin, within } from '../bench/lib/bounded.js';

const never = () => new Promise<never>(() => undefined);

describe("the bench's bounded waits", () => {
  it('settlesWithin tells a promise that settled, either way, from one that did not within the bound', async () => {
    expect(await settlesWithin(Promise.resolve(1), 1_000)).toBe(true);
    expect(await settlesWithin(Promise.reject(new Error('refused')), 1_000)).toBe(true);
    expect(await settlesWithin(never(), 20)).toBe(false);
  });

  it("within answers the work's result, or fails with the message as it reads once the bound has passed", async () => {
    expect(
      await within(
        1_000,
        () => 'unused',
        async () => 'done',
      ),
    ).toBe('done');
    let step = 'starting';
    const bounded = within(20, () => `still waiting for ${step}`, never);
    step = 'the last command';
    await expect(bounded).rejects.toThrow('still waiting for the last command');
  });
});
