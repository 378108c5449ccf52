import { describe, expect, it } from 'vitest';
import { parseKp1Path, topicMatches } from '../../src/gateway/topics.js';

describe('the KP1 topic grammar', () => {
  it('takes a last level of decimal digits, 0 included, as the request id, not as the resource', () => {
    expect(parseKp1Path('kp1/v1/epmx/tok/update/42')).toEqual({
      appVersionName: 'v1',
      extension: 'epmx',
      token: 'tok',
      resource: ['update'],
      requestId: 42,
    });
    expect(parseKp1Path('kp1/v1/epmx/tok/update/keys')).toMatchObject({
      resource: ['update', 'keys'],
      requestId: undefined,
    });
    // The platform's tutorial clients count request ids from 0 (spec 4).
    expect(parseKp1Path('kp1/v1/cex/tok/command/reboot/0')).toMatchObject({
      resource: ['command', 'reboot'],
      requestId: 0,
    });
    expect(parseKp1Path('kp1/v1/tsx/tok/7')).toMatchObject({ resource: [], requestId: 7 });
  });

  it('never reads the token level as a request id', () => {
    expect(parseKp1Path('kp1/v1/tsx/12345')).toMatchObject({ token: '12345', resource: [], requestId: undefined });
  });

  it('rejects short paths and empty levels, keeping the request id for the error reply', () => {
    expect(() => parseKp1Path('kp1/v1/cex')).toThrow(/too short/);
    expect(() => parseKp1Path('kp1/v1//tok/command/x/3')).toThrow(
      expect.objectContaining({ requestId: 3, message: expect.stringMatching(/empty level/) }),
    );
    expect(() => parseKp1Path('kp1/v1/epmx/tok/get/')).toThrow(/empty level/);
  });

  it('matches MQTT filters', () => {
    expect(topicMatches('kp1/#', 'kp1/a/b')).toBe(true);
    expect(topicMatches('kp1/+/cex/t/command/x/+', 'kp1/v/cex/t/command/x/status')).toBe(true);
    expect(topicMatches('kp1/+/cex/t/command/x/+', 'kp1/v/cex/t/command/x/5/status')).toBe(false);
    expect(topicMatches('a/b', 'a/b/')).toBe(false);
    expect(topicMatches('a/#', 'a')).toBe(true);
    // aedes has no shared subscriptions: `$share/...` matches only itself.
    expect(topicMatches('$share/g/a/+', 'a/b')).toBe(false);
  });
});
