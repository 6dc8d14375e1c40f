import { describe, expect, it } from 'vitest';
import { checkEndpoint } from '../../scripts/emulator/check-endpoint';

describe('AWS_ENDPOINT_URL check (only loopback addresses are a target)', () => {
  it.each(['http://localhost:4566', 'http://127.0.0.1:4566/', 'http://127.8.0.2:4566', 'http://[::1]:4566'])(
    'accepts the loopback endpoint %s',
    (endpoint) => {
      expect(checkEndpoint(endpoint, {})).toBe(endpoint.replace(/\/$/, ''));
    },
  );

  it.each(['http://10.0.0.5:4566', 'http://192.168.1.2:4566', 'https://example.com', 'http://localhost.evil.com:4566'])(
    'refuses the non-loopback endpoint %s without RESEAL_ALLOW_REMOTE_ENDPOINT=1',
    (endpoint) => {
      expect(() => checkEndpoint(endpoint, {})).toThrow(/not a loopback address/);
      expect(checkEndpoint(endpoint, { RESEAL_ALLOW_REMOTE_ENDPOINT: '1' })).toBe(endpoint);
    },
  );

  it('refuses a malformed URL', () => {
    expect(() => checkEndpoint('localhost:4566:x', {})).toThrow();
  });
});
