import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/** Props of {@link SigningKey}. */
export interface SigningKeyProps {
  /** What the key signs, for its description. */
  readonly purpose: string;
  /** Alias suffix: the alias is `alias/<stack name>-<aliasSuffix>`. */
  readonly aliasSuffix: string;
  /** What happens to the key when the stack is deleted or the resource replaced. */
  readonly removalPolicy: RemovalPolicy;
  /**
   * The key policy. @default the CDK default (the account may grant any use through IAM); the
   * witness passes one that keeps `kms:Sign` for its own role only.
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
      ...(props.policy ? { policy: props.policy } : {}),
    });
    this.alias = this.key.addAlias(`alias/${Stack.of(this).stackName}-${props.aliasSuffix}`);
  }

  /** The one signer: `kms:Sign` and `kms:GetPublicKey` (to name its own key in notes). */
  grantSign(grantee: iam.IGrantable): void {
    this.key.grantSign(grantee);
    this.grantPublicKey(grantee);
  }

  /** Verifiers: `kms:GetPublicKey` only (verification itself needs no AWS call). */
  grantPublicKey(grantee: iam.IGrantable): void {
    iam.Grant.addToPrincipal({ grantee, actions: ['kms:GetPublicKey'], resourceArns: [this.key.keyArn] });
  }
}
