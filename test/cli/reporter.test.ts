import { describe, expect, it } from 'vitest';
import { createReporter } from '../../src/cli/device/reporter.js';

const sample = (n: number) => ({ n, timestamp: 1714146067123 + n });

function jsonReporter() {
  const lines: any[] = [];
  const report = createReporter(true, (text) =>
    lines.push(
      ...text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ),
  );
  return { report, lines };
}

describe('device simulate output', () => {
  it('a refused telemetry sample is one error per device until a sample gets through again', () => {
    const { report, lines } = jsonReporter();
    const refused = (token: string, n: number) =>
      report({
        event: 'telemetry',
        token,
        sample: sample(n),
        accepted: false,
        statusCode: 404,
        message: 'Unknown extension "dcx"',
      });
    refused('a', 1);
    refused('a', 2);
    refused('b', 1);
    report({
      event: 'telemetry',
      token: 'a',
      sample: sample(3),
      accepted: false,
      message: 'No reply within 10000 ms.',
    });
    report({ event: 'telemetry', token: 'a', sample: sample(4), accepted: true });
    refused('a', 5);
    const once = ' (reported once until a sample succeeds)';
    const error = (token: string, message: string, statusCode?: number) => ({
      event: 'error',
      time: expect.any(String),
      token,
      ...(statusCode ? { statusCode } : {}),
      message: message + once,
    });
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
    report({
      event: 'disconnected',
      token: 'a',
      message: 'The connection to mqtt://127.0.0.1:1883 was lost (is the emulator still running?).',
    });
    report({ event: 'stopped', devices: 2, answered: 1 });
    expect(lines).toEqual([
      {
        event: 'error',
        time: expect.any(String),
        token: 'a',
        message: 'The connection to mqtt://127.0.0.1:1883 was lost (is the emulator still running?).',
      },
      { event: 'stopped', time: expect.any(String), devices: 2, answered: 1 },
    ]);
  });

  it('configuration, software and uploads are JSON lines with their fields as the device reported them', () => {
    const { report, lines } = jsonReporter();
    const events = [
      { event: 'config', token: 't', configId: 'c1', config: { tariff: 'flat' } },
      { event: 'config-applied', token: 't', configId: 'c1' },
      {
        event: 'config-rejected',
        token: 't',
        configId: 'c2',
        statusCode: 400,
        reasonPhrase: 'Rejected by the simulated device.',
      },
      { event: 'software', token: 't', version: '1.0.0', specification: { url: 'https://example.com/1.0.0.bin' } },
      { event: 'software-applied', token: 't', version: '1.0.0' },
      {
        event: 'software-rejected',
        token: 't',
        version: '1.1.0',
        statusCode: 400,
        reasonPhrase: 'Rejected by the simulated device.',
      },
      {
        event: 'uploaded',
        token: 't',
        blobId: '7',
        name: 'photo.jpg',
        size: 3,
        url: 'http://127.0.0.1:8080/bcx/api/v1/applications/a/endpoints/e/binary-data/7/data',
      },
    ] as const;
    for (const event of events) report(event);
    expect(lines).toEqual(events.map(({ event, ...fields }) => ({ event, time: expect.any(String), ...fields })));
  });

  it('people get one line per event: time, device, what happened', () => {
    let text = '';
    const report = createReporter(false, (chunk) => (text += chunk));
    report({
      event: 'answered',
      token: 'meter-001-token',
      commandType: 'reboot',
      commandId: 7,
      statusCode: 200,
      reasonPhrase: 'OK',
      payload: { done: true },
    });
    report({ event: 'config', token: 'meter-001-token', configId: 'c1', config: { tariff: 'flat' } });
    report({ event: 'config-applied', token: 'meter-001-token', configId: 'c1' });
    report({ event: 'config', token: 'meter-001-token', configId: '', config: null });
    report({
      event: 'config-rejected',
      token: 'meter-001-token',
      configId: 'c2',
      statusCode: 400,
      reasonPhrase: 'Rejected by the simulated device.',
    });
    report({ event: 'software', token: 'meter-001-token', version: '1.0.0', specification: { size: 1 } });
    report({ event: 'software-applied', token: 'meter-001-token', version: '1.0.0' });
    report({
      event: 'software-rejected',
      token: 'meter-001-token',
      version: '1.1.0',
      statusCode: 400,
      reasonPhrase: 'Rejected by the simulated device.',
    });
    report({ event: 'software', token: 'meter-001-token', version: '', specification: null });
    report({
      event: 'uploaded',
      token: 'meter-001-token',
      blobId: '7',
      name: 'photo.jpg',
      size: 3,
      url: 'http://h/bcx/7/data',
    });
    report({ event: 'stopped', devices: 1, answered: 1 });
    const lines = text
      .replace(/\u001b\[[0-9;]*m/g, '')
      .trimEnd()
      .split('\n');
    expect(lines.every((l) => /^\d\d:\d\d:\d\d /.test(l))).toBe(true);
    expect(lines.map((l) => l.slice('00:00:00 '.length))).toEqual([
      'meter-001-token  answered reboot #7 200 OK {"done":true}',
      'meter-001-token  config c1 offered {"tariff":"flat"}',
      'meter-001-token  config-applied c1',
      'meter-001-token  config none offered (no configuration for this version)',
      'meter-001-token  config-rejected c2 400 Rejected by the simulated device.',
      'meter-001-token  software 1.0.0 offered {"size":1}',
      'meter-001-token  software-applied 1.0.0',
      'meter-001-token  software-rejected 1.1.0 400 Rejected by the simulated device.',
      'meter-001-token  software none offered',
      'meter-001-token  uploaded photo.jpg as blob 7 (3 bytes) http://h/bcx/7/data',
      'stopped 1 device; 1 command answered',
    ]);
  });
});
