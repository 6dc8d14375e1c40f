/**
 * Default CloudFormation stack name of a Reseal deployment (`cdk deploy ResealStack`). Its own
 * module, free of the AWS SDK, so commands that only name it (in `--help`) load no SDK.
 */
export const DEFAULT_STACK_NAME = 'ResealStack';
