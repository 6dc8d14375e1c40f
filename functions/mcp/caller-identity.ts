import { z } from 'zod';

/**
 * The caller API Gateway authenticated on an `AWS_IAM` route: the `requestContext.authorizer.iam`
 * block of an HTTP API (payload format 2.0) event, as far as Reseal uses it.
 */
export interface CallerIdentity {
  /** The caller's IAM principal, e.g. `arn:aws:sts::123456789012:assumed-role/agent/session`. */
  readonly userArn: string;
  readonly accountId: string;
  /** The principal's unique id (`AROA…:session`, `AIDA…`), or `null` when the gateway gave none. */
  readonly userId: string | null;
}

/** What API Gateway puts in `requestContext.authorizer.iam`; unknown fields are ignored, absent ones may be `null`. */
const IamAuthorizerSchema = z.object({
  userArn: z.string().min(1),
  accountId: z.string().min(1),
  userId: z.string().min(1).nullish(),
  callerId: z.string().min(1).nullish(),
});

/**
 * The caller identity of an HTTP API event's `requestContext.authorizer`, or `null` when the event
 * carries none: a request that did not come through an `AWS_IAM` route (a function URL, a direct
 * `Invoke`, an emulator that could not resolve the access key). Never read from a request header.
 */
export function callerIdentityOf(authorizer: unknown): CallerIdentity | null {
  const iam = z.object({ iam: IamAuthorizerSchema }).safeParse(authorizer);
  if (!iam.success) return null;
  const { userArn, accountId, userId, callerId } = iam.data.iam;
  return { userArn, accountId, userId: userId ?? callerId ?? null };
}
