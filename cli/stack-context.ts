import { DEFAULT_STACK_NAME } from '../client/stack-name';

/** The CDK's `-c` arguments of a stack name (the app's construct id stays `ResealStack`). */
export function stackContext(stack: string): string[] {
  return stack === DEFAULT_STACK_NAME ? [] : ['-c', `stackName=${stack}`];
}
