import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The Node.js runtime every Reseal function runs on (the newest this aws-cdk-lib knows). */
export const RESEAL_RUNTIME = lambda.Runtime.NODEJS_24_X;

/** Props of {@link ResealFunction}. */
export interface ResealFunctionProps {
  /** Handler file, relative to the repository root, exporting `handler` (e.g. `functions/guard/handler.ts`). */
  readonly entry: string;
  /** Powertools service name (`POWERTOOLS_SERVICE_NAME`), e.g. `reseal-guard`. */
  readonly serviceName: string;
  /** Shown in the console. */
  readonly description: string;
  /** Function-specific environment, merged over the Powertools variables. */
  readonly environment?: Record<string, string>;
  /** @default Duration.seconds(30) */
  readonly timeout?: Duration;
  /** @default 512 */
  readonly memorySizeMb?: number;
  /** What happens to the log group when the stack is deleted. */
  readonly removalPolicy: RemovalPolicy;
  /**
   * Endpoint the function's AWS SDK clients should call instead of AWS (an emulator only).
   * Passed as `AWS_ENDPOINT_URL`; leave undefined for real AWS.
   * @default undefined
   */
  readonly endpointOverride?: string;
  /**
   * Endpoints by Powertools service name (e.g. `reseal-guard`), each passed as that function's
   * `AWS_ENDPOINT_URL` in place of `endpointOverride`: an emulator bench tells the functions'
   * calls apart by where they arrive (docs/infrastructure.md, "Cost and quotas"). Never for real AWS.
   * @default undefined
   */
  readonly endpointOverrides?: Readonly<Record<string, string>>;
}

/**
 * A Lambda function as every Reseal function is built: bundled with esbuild including the AWS SDK
 * (`externalModules: []`, so no emulator's SDK stand-in is used), source maps on, its own log
 * group with a retention, and a role that may only write to that log group until grants add more.
 */
export class ResealFunction extends Construct {
  /** The function. */
  readonly fn: NodejsFunction;
  /** Its execution role (no managed policies). */
  readonly role: iam.Role;
  /** Its log group. */
  readonly logGroup: logs.LogGroup;
  /** The function-specific environment it was given (`props.environment`). */
  readonly environment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: ResealFunctionProps) {
    super(scope, id);
    this.environment = { ...props.environment };
    const endpoint = props.endpointOverrides?.[props.serviceName] ?? props.endpointOverride;
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.removalPolicy,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${props.serviceName}`,
    });
    this.logGroup.grantWrite(this.role);

    this.fn = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: RESEAL_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySizeMb ?? 512,
      timeout: props.timeout ?? Duration.seconds(30),
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        POWERTOOLS_METRICS_NAMESPACE: 'Reseal',
        // Stack traces point into functions/ and shared/, not into the minified bundle.
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
        ...(endpoint ? { AWS_ENDPOINT_URL: endpoint } : {}),
      },
      bundling: {
        // Bundle the AWS SDK too: the runtime's copy (or an emulator's stand-in) is not what we tested.
        externalModules: [],
        sourceMap: true,
        minify: true,
        // Error classes set literal names, but keep class names for stack traces anyway.
        keepNames: true,
        // The emulator runs functions on the host's node (20 here); AWS runs them on RESEAL_RUNTIME.
        target: 'node20',
      },
    });
  }
}
