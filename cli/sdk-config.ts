import type { CliIo } from './io';

/** SDK client configuration from the run's environment: `AWS_ENDPOINT_URL` (an emulator) and region. */
export function sdkConfig(env: CliIo['env']): { region: string; endpoint?: string } {
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1';
  return env.AWS_ENDPOINT_URL ? { region, endpoint: env.AWS_ENDPOINT_URL } : { region };
}
