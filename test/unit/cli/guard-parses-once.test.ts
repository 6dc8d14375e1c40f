import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ResidualWriteRequestSchema } from '../../../shared/write/write-request';
import { runCli } from './run-cli';

const FIXTURES = join(import.meta.dirname, 'fixtures');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('reseal guard validates its request once, at the file (docs/cli.md, guard)', () => {
  it('a safe request is schema-parsed exactly once on its way to the verdict, exit 0', async () => {
    const parse = vi.spyOn(ResidualWriteRequestSchema, 'safeParse');
    const result = await runCli(['guard', '--request', 'request-safe.json', '--now-ms', '1800000000000'], {
      cwd: FIXTURES,
    });
    expect(result.exitCode).toBe(0);
    expect(parse).toHaveBeenCalledTimes(1);
  });

  it('a bad request still names the file and each unknown field, exit 2', async () => {
    const result = await runCli(['guard', '--request', 'request-unknown-field.json', '--now-ms', '1800000000000'], {
      cwd: FIXTURES,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('request-unknown-field.json');
    expect(result.stderr).toContain('unknown field (not part of the residual write request)');
  });
});
