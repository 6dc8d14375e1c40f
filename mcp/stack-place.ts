import type { McpServerConfig } from './config';
import type { StackPlace } from './stack-unavailable';

/** Where `config` looks for its stack, as an `UNAVAILABLE` answer reports it. */
export function stackPlace(config: McpServerConfig): StackPlace {
  return {
    stackName: config.stackName,
    outputsFile: config.outputsFile,
    region: config.region,
    endpoint: config.endpoint,
  };
}
