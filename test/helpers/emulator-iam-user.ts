import { sigV4Fetch } from '../../adapters/sigv4-fetch';
import { EMULATOR_REGION } from '../../scripts/emulator/deploy';

/** The emulator's root credentials (MiniStack's defaults), which may call IAM. */
const ROOT = { accessKeyId: 'test', secretAccessKey: 'test' };

/** An IAM user of the emulator and its access key. */
export interface IamUser {
  readonly name: string;
  readonly arn: string;
  readonly keys: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/**
 * Creates the IAM user `name` with an access key through the emulator's IAM query API (this
 * repository has no IAM SDK client), and with `actions` an identity policy allowing them on
 * every resource (docs/authorship.md, "Tenancy", "On the emulator").
 *
 * @throws {Error} on an IAM call's HTTP error, or an answer with no user ARN or key
 */
export async function createIamUser(endpoint: string, name: string, actions?: readonly string[]): Promise<IamUser> {
  const iam = sigV4Fetch({ region: EMULATOR_REGION, credentials: ROOT, service: 'iam' });
  const call = async (params: Record<string, string>) => {
    const response = await iam(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ Version: '2010-05-08', ...params }).toString(),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`IAM ${params.Action}: HTTP ${response.status} ${text.slice(0, 300)}`);
    return text;
  };
  const arn = /<Arn>([^<]+)<\/Arn>/.exec(await call({ Action: 'CreateUser', UserName: name }))?.[1];
  const key = await call({ Action: 'CreateAccessKey', UserName: name });
  if (actions)
    await call({
      Action: 'PutUserPolicy',
      UserName: name,
      PolicyName: 'agent',
      PolicyDocument: JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: actions, Resource: '*' }],
      }),
    });
  const accessKeyId = /<AccessKeyId>([^<]+)<\/AccessKeyId>/.exec(key)?.[1];
  const secretAccessKey = /<SecretAccessKey>([^<]+)<\/SecretAccessKey>/.exec(key)?.[1];
  if (!arn || !accessKeyId || !secretAccessKey) throw new Error(`IAM: no user or key for ${name}`);
  return { name, arn, keys: { accessKeyId, secretAccessKey } };
}
