import { DEFAULT_DEPLOY_SETTINGS, type DeploySettings } from '../shared/cost/deploy-settings';
import { tableCapacity } from '../shared/cost/table-capacity';

type Resource = { readonly Type?: string; readonly Properties?: Record<string, unknown> };

/**
 * The settings a synthesized `ResealStack` template deploys with (docs/infrastructure.md, "What a
 * deployment costs"), read from the template rather than from the `-c` values so that cdk.json's
 * context counts too: the guard's batching window (its event sources' `MaximumBatchingWindowInSeconds`,
 * the longest when tenants add some), the integration interval (the integrator's), and the
 * lineage table's billing (`BillingMode`, and its write capacity's scalable target's bounds).
 * What the template does not hold is the stack's default ({@link DEFAULT_DEPLOY_SETTINGS}).
 *
 * @throws {Error} for a provisioned table whose bounds `tableCapacity` refuses
 */
export function templateDeploySettings(template: unknown): DeploySettings {
  const byId = ((template ?? {}) as { Resources?: Record<string, Resource> }).Resources ?? {};
  const resources = Object.values(byId);
  const serviceOf = (ref: unknown): unknown => {
    const id = (ref as { Ref?: string } | undefined)?.Ref;
    const env = byId[id ?? '']?.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined;
    return env?.Variables?.POWERTOOLS_SERVICE_NAME;
  };
  const windows = (service: string) =>
    resources
      .filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping' && serviceOf(r.Properties?.FunctionName) === service)
      .map((r) => Number(r.Properties?.MaximumBatchingWindowInSeconds ?? 0));
  const guard = windows('reseal-guard');
  const integration = windows('reseal-integrator');
  const table = resources.find((r) => r.Type === 'AWS::DynamoDB::Table');
  const provisioned = table !== undefined && table.Properties?.BillingMode !== 'PAY_PER_REQUEST';
  const writeTarget = resources.find(
    (r) =>
      r.Type === 'AWS::ApplicationAutoScaling::ScalableTarget' &&
      r.Properties?.ScalableDimension === 'dynamodb:table:WriteCapacityUnits',
  )?.Properties;
  const throughput = table?.Properties?.ProvisionedThroughput as { WriteCapacityUnits?: number } | undefined;
  return {
    guardBatchingWindowSeconds:
      guard.length > 0 ? Math.max(...guard) : DEFAULT_DEPLOY_SETTINGS.guardBatchingWindowSeconds,
    integrationIntervalSeconds: integration[0] ?? DEFAULT_DEPLOY_SETTINGS.integrationIntervalSeconds,
    tableCapacity: provisioned
      ? tableCapacity({
          mode: 'provisioned',
          minCapacity: Number(writeTarget?.MinCapacity ?? throughput?.WriteCapacityUnits),
          maxCapacity: Number(writeTarget?.MaxCapacity ?? throughput?.WriteCapacityUnits),
        })
      : DEFAULT_DEPLOY_SETTINGS.tableCapacity,
  };
}
