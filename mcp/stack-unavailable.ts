import { StackOutputsError } from '../client/errors';
import { ResealError } from '../shared/errors';
import { MissingPart } from './missing-part';

/** Where the server looks for its stack: what an `UNAVAILABLE` answer reports beside `missing`. */
export interface StackPlace {
  readonly stackName: string;
  /** The outputs file (`RESEAL_STACK_OUTPUTS`), or `null` to read the stack with `DescribeStacks`. */
  readonly outputsFile: string | null;
  /** The configured region, or `null` for the SDK's (profile, …). */
  readonly region: string | null;
  /** The configured endpoint, or `null` for real AWS. */
  readonly endpoint: string | null;
}

/** What to do about each missing part, for the agent's host (the agent itself cannot fix it). */
const FIXES: Readonly<Record<MissingPart, string>> = {
  outputs:
    'give the server the stack outputs: a cdk deploy --outputs-file document in RESEAL_STACK_OUTPUTS (--outputs-file), or a deployed stack in RESEAL_STACK',
  region: 'set AWS_REGION (or AWS_DEFAULT_REGION, or a region in the AWS profile) in the server environment',
  credentials:
    'give the server AWS credentials (AWS_PROFILE, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a role) that may use the stack',
  stack: 'deploy the stack, or name the deployed one in RESEAL_STACK (--stack) in the right account and region',
  endpoint: 'start the stack endpoint (AWS_ENDPOINT_URL: is the emulator running?) or check the network',
};

/**
 * The server cannot reach its stack yet: a part of its configuration or of the deployment is
 * missing ({@link missing}). Retryable: the server resolves the stack again on the next tool call,
 * so fixing the part (deploying, signing in) needs no restart of the server.
 */
export class StackUnavailableError extends ResealError {
  readonly retryable = true;
  readonly missing: MissingPart;
  readonly place: StackPlace;
  /** What the host's user can do about it. */
  readonly fix: string;
  constructor(missing: MissingPart, place: StackPlace, reason: string, options?: ErrorOptions) {
    super(`stack ${place.stackName} cannot be reached: ${missing} missing (${reason})`, options);
    this.name = 'StackUnavailableError';
    this.missing = missing;
    this.place = place;
    this.fix = FIXES[missing];
  }
}

const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/** AWS error names for credentials it does not accept (unknown, expired, mis-signed). */
const REFUSED_CREDENTIALS: ReadonlySet<string> = new Set([
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
]);

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** The part an error of the AWS SDK shows missing, looking through its `cause` chain; `null`: none. */
function missingPartOf(error: unknown, depth = 0): MissingPart | null {
  if (!(error instanceof Error) || depth > 5) return null;
  const code = (error as { code?: unknown }).code;
  if (error.name === 'CredentialsProviderError' || REFUSED_CREDENTIALS.has(error.name)) return MissingPart.CREDENTIALS;
  // The SDK's words for no region, and for an unusable one (e.g. AWS_REGION set to an empty string).
  if (/^Region is missing|^Region not accepted/.test(error.message)) return MissingPart.REGION;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return MissingPart.ENDPOINT;
  // CloudFormation answers a stack it does not know with a ValidationError "Stack with id … does not exist".
  if (error.name === 'ValidationError' && /does not exist/.test(error.message)) return MissingPart.STACK;
  if (error instanceof StackOutputsError) {
    // A wrapped AWS error (access denied, throttling) shows nothing missing: it passes through.
    if (error.cause !== undefined) return missingPartOf(error.cause, depth + 1);
    return /missing outputs|not in the outputs file/.test(error.message) ? MissingPart.OUTPUTS : MissingPart.STACK;
  }
  return missingPartOf(error.cause, depth + 1);
}

/**
 * The {@link StackUnavailableError} that `error` (thrown while resolving the stack or calling it)
 * amounts to, or `null` when it shows nothing missing (an AWS error of another kind, a bug).
 */
export function stackUnavailableFrom(error: unknown, place: StackPlace): StackUnavailableError | null {
  if (error instanceof StackUnavailableError) return error;
  const missing = missingPartOf(error);
  return missing ? new StackUnavailableError(missing, place, describe(error), { cause: error }) : null;
}
