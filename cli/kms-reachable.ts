import type { CliIo } from './io';

const CREDENTIAL_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_PROFILE',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
];

/** True when the environment names a KMS endpoint or AWS credentials. */
export function kmsReachable(env: CliIo['env']): boolean {
  if (env.AWS_ENDPOINT_URL || env.AWS_ENDPOINT_URL_KMS) return true;
  return CREDENTIAL_VARIABLES.some((name) => Boolean(env[name]));
}
