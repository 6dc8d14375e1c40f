import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ResealFunction } from './reseal-function';

/** The path of the MCP endpoint on the HTTP API. */
export const MCP_PATH = '/mcp';

/** Props of {@link McpApi}. */
export interface McpApiProps {
  /** The remote MCP function's variables (functions/mcp/handler.ts reads them). */
  readonly environment: Record<string, string>;
  readonly removalPolicy: RemovalPolicy;
  /** An emulator's endpoint for the function's SDK clients (docs/infrastructure.md); never for real AWS. */
  readonly endpointOverride?: string | undefined;
  /** Endpoints by service name, over `endpointOverride` (`ResealFunctionProps.endpointOverrides`); never for real AWS. */
  readonly endpointOverrides?: Readonly<Record<string, string>> | undefined;
}

/**
 * The remote MCP server (docs/mcp.md, "Remote MCP"): an API Gateway HTTP API whose only routes
 * are `POST`, `GET` and `DELETE` `/mcp`, each with `AWS_IAM` authorization (a caller needs
 * `execute-api:Invoke` on the route and signs with SigV4), integrated with one stateless function
 * (payload format 2.0, so the caller's identity reaches it as `requestContext.authorizer.iam`).
 * The function answers GET and DELETE 405 itself. Its timeout stays under API Gateway's 30 s
 * integration limit, so a slow call ends as a tool error, not a gateway timeout. Access logs go to
 * a log group of their own; the stage throttles to protect the table and the shared KMS quotas.
 * The function's role gets its grants from the stack.
 */
export class McpApi extends Construct {
  readonly api: apigwv2.HttpApi;
  readonly function: ResealFunction;
  /** `https://<api id>.execute-api.<region>.<suffix>/mcp`. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: McpApiProps) {
    super(scope, id);
    this.function = new ResealFunction(this, 'Handler', {
      entry: 'functions/mcp/handler.ts',
      serviceName: 'reseal-mcp',
      description: 'Remote MCP server: the Reseal tools over stateless Streamable HTTP (AWS_IAM callers)',
      environment: props.environment,
      removalPolicy: props.removalPolicy,
      endpointOverride: props.endpointOverride,
      endpointOverrides: props.endpointOverrides,
      timeout: Duration.seconds(29),
    });
    this.api = new apigwv2.HttpApi(this, 'Api', {
      description: 'Reseal remote MCP (Streamable HTTP, AWS_IAM)',
      createDefaultStage: false,
    });
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.removalPolicy,
    });
    new apigwv2.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: { destination: new apigwv2.LogGroupLogDestination(accessLogs) },
      throttle: { rateLimit: 50, burstLimit: 100 },
    });
    this.api.addRoutes({
      path: MCP_PATH,
      methods: [apigwv2.HttpMethod.POST, apigwv2.HttpMethod.GET, apigwv2.HttpMethod.DELETE],
      integration: new HttpLambdaIntegration('McpIntegration', this.function.fn, {
        payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0,
      }),
      authorizer: new HttpIamAuthorizer(),
    });
    this.url = `${this.api.apiEndpoint}${MCP_PATH}`;
  }
}
