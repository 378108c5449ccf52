import { describe, expect, it } from 'vitest';
import { createReporter } from '../../src/cli/device/reporter.js';

const sample = (n: number) => ({ n, timestamp: 1714146067123 + n });

function jsonReporter() {
  const lines: any[] = [];
  const report = createReporter(true, (text) => lines.push(...text.trimEnd().split('\n').map((line) => JSON.parse(line))));
  return { report, lines };
}

describe('device simulate output', () => {
  it('a refused telemetry sample is one error per device until a sample gets through again', () => {
    const { report, lines } = jsonReporter();
    const refused = (token: string, n: number) => report({ event: 'telemetry', token, sample: sample(n), accepted: false, statusCode: 404, message: 'Unknown extension "dcx"' });
    refused('a', 1);
    refused('a', 2);
    refused('b', 1);
    report({ event: 'telemetry', token: 'a', sample: sample(3), accepted: false, message: 'No reply within 10000 ms.' });
    report({ event: 'telemetry', token: 'a', sample: sample(4), accepted: true });
    refused('a', 5);
    const once = ' (reported once until a sample succeeds)';
    const error = (token: string, message: string, statusCode?: number) => ({ event: 'error', time: expect.any(String), token, ...(statusCode ? { statusCode } : {}), message: message + once });
    expect(lines).toEqual([
      error('a', 'telemetry rejected: Unknown extension "dcx"', 404),
      error('b', 'telemetry rejected: Unknown extension "dcx"', 404),
      error('a', 'telemetry: No reply within 10000 ms.'),
      { event: 'telemetry', time: expect.any(String), token: 'a', sample: sample(4) },
      error('a', 'telemetry rejected: Unknown extension "dcx"', 404),
    ]);
  });

  it('a lost connection is an error line; the end of a run counts devices and answers', () => {
    const { report, lines } = jsonReporter();
    report({ event: 'disconnected', token: 'a', message: 'The connection to mqtt://127.0.0.1:1883 was lost (is the emulator still running?).' });
    report({ event: 'stopped', devices: 2, answered: 1 });
    expect(lines).toEqual([
      { event: 'error', time: expect.any(String), token: 'a', message: 'The connection to mqtt://127.0.0.1:1883 was lost (is the emulator still running?).' },
      { event: 'stopped', time: expect.any(String), devices: 2, answered: 1 },
    ]);
  });

  it('people get one line per event: time, device, what happened', () => {
    let text = '';
    const report = createReporter(false, (chunk) => (text += chunk));
    report({ event: 'answered', token: 'meter-001-token', commandType: 'reboot', commandId: 7, statusCode: 200, reasonPhrase: 'OK', payload: { done: true } });
    report({ event: 'stopped', devices: 1, answered: 1 });
    expect(text.replace(/\u001b\[[0-9;]*m/g, '').split('\n')).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d meter-001-token {2}answered reboot #7 200 OK \{"done":true\}$/),
      expect.stringMatching(/^\d\d:\d\d:\d\d stopped 1 device; 1 command answered$/),
      '',
    ]);
  });
});
