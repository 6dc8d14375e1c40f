import { join } from 'node:path';

/**
 * The environment of a process run as on a machine with no AWS set up: only `PATH`, `HOME` at
 * `dir`, AWS configuration and credentials files that do not exist under it, and no instance
 * metadata, so nothing the process does can find credentials or reach the network.
 */
export function noAwsEnv(dir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    AWS_CONFIG_FILE: join(dir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}
