import * as iam from 'aws-cdk-lib/aws-iam';
import type { DetailType } from '../shared/pipeline/detail-type';

/**
 * The detail-types Reseal's own functions put on the bus: every one but `RecallRequested`, which
 * callers put (clients, and the remote MCP function on their behalf; docs/triage.md, "Tenants").
 */
export type PublishedDetailType = Exclude<DetailType, typeof DetailType.RecallRequested>;

/**
 * The bus policy statements that keep each detail-type the functions publish to the roles that
 * publish it (docs/infrastructure.md, "Permissions"): per detail-type,
 * `OnlyItsPublishersPut-<detail-type>` denies `events:PutEvents` of it (`events:detail-type`, under
 * any `events:source`, so no rule or consumer that matches the detail-type alone is fooled either)
 * to every principal whose `aws:PrincipalArn` is none of its publishers' roles. A client keeps the
 * head of a `ResidualSealed` event as the head it checks against: a head anyone could put would let
 * them raise false `TRUNCATION_DETECTED` / `LINEAGE_BROKEN` on an intact lineage. EventBridge
 * authorizes each `PutEvents` entry on its own, so one entry's detail-type is one value. The
 * statements grant nothing; the publishers' right comes from their own roles.
 *
 * @param busArn - the bus's ARN, built from its name (the policy is a property of the bus itself,
 *   which cannot refer to its own `Arn` attribute)
 * @param publishers - the execution roles that put each detail-type; the type names every one, so
 *   a new detail-type cannot be left unguarded
 */
export function publisherBusStatements(
  busArn: string,
  publishers: Readonly<Record<PublishedDetailType, readonly iam.IRole[]>>,
): iam.PolicyStatement[] {
  return (Object.entries(publishers) as [PublishedDetailType, readonly iam.IRole[]][]).map(
    ([detailType, roles]) =>
      new iam.PolicyStatement({
        sid: `OnlyItsPublishersPut-${detailType}`,
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['events:PutEvents'],
        resources: [busArn],
        conditions: {
          StringEquals: { 'events:detail-type': detailType },
          ArnNotEquals: { 'aws:PrincipalArn': roles.map((role) => role.roleArn) },
        },
      }),
  );
}
