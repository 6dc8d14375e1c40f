import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { NOTICE_KEY_PURPOSE } from '../../shared/ports/notice-key';
import { accountAdministersPolicy } from './account-administers-policy';

/** Props of {@link NoticeKey}. */
export interface NoticeKeyProps {
  /** The log's name (`LOG_NAME`): the `log` of the encryption context every use is conditioned on. */
  readonly logName: string;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The notice key (docs/infrastructure.md, "Key policies"; docs/deployment-log.md, "Sealed-run notices"):
 * a symmetric `SYMMETRIC_DEFAULT` / `ENCRYPT_DECRYPT` key, rotated yearly, whose data keys MAC the
 * sealed-run notices and the heads the sealer stores (docs/verifiable-log.md, "Appending"). The
 * account administers it and may use it for nothing; the sealer's role alone may
 * `kms:GenerateDataKey`, and the sealer's and the integrator's roles alone `kms:Decrypt` (the
 * sealer: to authenticate the heads another of its containers MAC'd), each only under the notice
 * encryption context (`purpose` {@link NOTICE_KEY_PURPOSE}, `log` the log's name), in its role's
 * policy and in the key policy. So a notice's or a head's MAC under a data key is as hard to forge
 * as a KMS head-state MAC for the table writer, the integrator's invokers and the queue's policy editors.
 */
export class NoticeKey extends Construct {
  readonly key: kms.Key;
  /** `alias/<stack name>-notice`. */
  readonly alias: kms.Alias;
  readonly #conditions: Record<string, Record<string, string>>;

  constructor(scope: Construct, id: string, props: NoticeKeyProps) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: 'Reseal sealed-run notice MACs (data keys, AES-256)',
      keySpec: kms.KeySpec.SYMMETRIC_DEFAULT,
      keyUsage: kms.KeyUsage.ENCRYPT_DECRYPT,
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
      pendingWindow: Duration.days(7),
      policy: accountAdministersPolicy('AccountAdministersButDoesNotUse'),
    });
    this.alias = this.key.addAlias(`alias/${Stack.of(this).stackName}-notice`);
    this.#conditions = {
      StringEquals: {
        'kms:EncryptionContext:purpose': NOTICE_KEY_PURPOSE,
        'kms:EncryptionContext:log': props.logName,
      },
    };
  }

  /** The sealer (`who` names it in the Sid): `kms:GenerateDataKey` under the notice context only. */
  grantGenerateDataKey(grantee: iam.IGrantable, who: string): void {
    this.#allow(grantee, `${who}GeneratesNoticeDataKeys`, 'kms:GenerateDataKey');
  }

  /** The sealer and the integrator (`who` names it in the Sid): `kms:Decrypt` under the notice context only. */
  grantDecrypt(grantee: iam.IGrantable, who: string): void {
    this.#allow(grantee, `${who}OpensNoticeDataKeys`, 'kms:Decrypt');
  }

  #allow(grantee: iam.IGrantable, sid: string, action: string): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: [action], resources: [this.key.keyArn], conditions: this.#conditions }),
    );
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: sid.replace(/[^A-Za-z0-9]/g, ''),
        principals: [grantee.grantPrincipal],
        actions: [action],
        resources: ['*'],
        conditions: this.#conditions,
      }),
    );
  }
}
