import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { accountAdministersPolicy } from './account-administers-policy';

/** Props of {@link SigningKey}. */
export interface SigningKeyProps {
  /** What the key signs, for its description. */
  readonly purpose: string;
  /** Alias suffix: the alias is `alias/<stack name>-<aliasSuffix>`. */
  readonly aliasSuffix: string;
  /** What happens to the key when the stack is deleted or the resource replaced. */
  readonly removalPolicy: RemovalPolicy;
  /**
   * The key policy. @default {@link accountAdministersPolicy}: the account administers the key
   * (and reads its public key) but holds no `kms:Sign`; {@link SigningKey.grantSign} and
   * {@link SigningKey.grantPublicKey} name each function in it.
   */
  readonly policy?: iam.PolicyDocument;
}

/**
 * A KMS `ECC_NIST_EDWARDS25519` / `SIGN_VERIFY` key that signs C2SP signed notes
 * (docs/verifiable-log.md, "Keys"). The private key never leaves KMS; the public key is
 * readable with `kms:GetPublicKey`, so anyone holding it checks a signature with no AWS call.
 * Grants are split so exactly one function can sign.
 */
export class SigningKey extends Construct {
  /** The Ed25519 key. */
  readonly key: kms.Key;
  /** `alias/<stack name>-<aliasSuffix>`. */
  readonly alias: kms.Alias;

  constructor(scope: Construct, id: string, props: SigningKeyProps) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: `Reseal ${props.purpose} (Ed25519, C2SP signed notes)`,
      keySpec: kms.KeySpec.ECC_NIST_EDWARDS25519,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      removalPolicy: props.removalPolicy,
      pendingWindow: Duration.days(7),
      policy: props.policy ?? accountAdministersPolicy(),
    });
    this.alias = this.key.addAlias(`alias/${Stack.of(this).stackName}-${props.aliasSuffix}`);
  }

  /**
   * A signer (`who` names it in the statement's Sid): `kms:Sign` and `kms:GetPublicKey` (to name its own key in notes), in its role's
   * policy and in the key policy (`Sign` is in no account statement, so only roles named here sign).
   */
  grantSign(grantee: iam.IGrantable, who: string): void {
    this.key.grantSign(grantee);
    iam.Grant.addToPrincipal({ grantee, actions: ['kms:GetPublicKey'], resourceArns: [this.key.keyArn] });
    allowInKeyPolicy(this.key, `${who}Signs`, grantee, ['kms:Sign', 'kms:GetPublicKey']);
  }

  /** Verifiers (`who` names it in the Sid): `kms:GetPublicKey` only (verification itself needs no AWS call), in its role's policy and the key policy. */
  grantPublicKey(grantee: iam.IGrantable, who: string): void {
    iam.Grant.addToPrincipal({ grantee, actions: ['kms:GetPublicKey'], resourceArns: [this.key.keyArn] });
    allowInKeyPolicy(this.key, `${who}ReadsThePublicKey`, grantee, ['kms:GetPublicKey']);
  }
}

/**
 * Adds a key-policy statement allowing `actions` to `grantee`'s principal (a function's role):
 * the key policy, not IAM alone, is what lets it use the key (docs/infrastructure.md, "Key policies").
 * `sid` keeps the statement apart from the others (no merging of statements by principal).
 */
export function allowInKeyPolicy(key: kms.Key, sid: string, grantee: iam.IGrantable, actions: readonly string[]): void {
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: sid.replace(/[^A-Za-z0-9]/g, ''),
      principals: [grantee.grantPrincipal],
      actions: [...actions],
      resources: ['*'],
    }),
  );
}
