import { CfnOutput, CustomResource, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Provider } from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import { parseRecoveryKeys } from '../shared/witness/recovery-keys';
import { parseTrustedLogs } from '../shared/witness/trusted-logs';
import { ResealFunction } from './constructs/reseal-function';
import { SigningKey } from './constructs/signing-key';

/** Props of {@link WitnessStack}. */
export interface WitnessStackProps extends StackProps {
  /**
   * The log vkeys (`<name>+<hash>+<key>`, as `reseal log-key` prints them) the witness cosigns
   * for, separated by white space; each key's name is the origin it signs. Validated at synth.
   */
  readonly logKeys: string;
  /**
   * The operator's recovery keys (signed-note vkeys separated by white space) whose signature a
   * re-anchor must carry (`RECOVERY_KEYS`, docs/witness.md, "re-anchor"). Validated at synth.
   * @default none: every re-anchor is refused
   */
  readonly recoveryKeys?: string;
  /** Cosigner name in its signature lines. @default `reseal/witness/<stackName>` */
  readonly witnessName?: string;
  /** What happens to the table, the key and the log groups when the stack is deleted. @default DESTROY */
  readonly removalPolicy?: RemovalPolicy;
  /** Emulator endpoint passed to the functions as `AWS_ENDPOINT_URL` (never for real AWS). */
  readonly endpointOverride?: string;
}

/** The default cosigner name of a witness stack. */
export const witnessNameOf = (stackName: string): string => `reseal/witness/${stackName}`;

/** Actions on the witness table that only the witness function holds. */
export const WITNESS_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem'] as const;

/**
 * A C2SP tlog-witness for Reseal's deployment log, in its own stack so it can live in another
 * account (docs/witness.md, "Deployment"): its own Ed25519 key, whose key policy lets only the
 * witness role sign; its own table, which only that role reads and writes; and a function behind
 * a Lambda function URL (`POST <WitnessUrl>add-checkpoint`). Outputs the URL and the cosigner
 * vkey a policy needs.
 */
export class WitnessStack extends Stack {
  constructor(scope: Construct, id: string, props: WitnessStackProps) {
    super(scope, id, props);
    parseTrustedLogs(props.logKeys);
    parseRecoveryKeys(props.recoveryKeys);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.DESTROY;
    const witnessName = props.witnessName ?? witnessNameOf(this.stackName);

    const table = new dynamodb.Table(this, 'StateTable', {
      partitionKey: { name: 'origin', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy,
    });
    const key = new SigningKey(this, 'WitnessKey', {
      purpose: 'witness cosignatures (cosignature/v1)',
      aliasSuffix: 'witness',
      removalPolicy,
    });
    const witness = new ResealFunction(this, 'Witness', {
      entry: 'functions/witness/handler.ts',
      serviceName: 'reseal-witness',
      description: 'C2SP tlog-witness add-checkpoint: cosign consistent deployment checkpoints',
      timeout: Duration.seconds(10),
      removalPolicy,
      endpointOverride: props.endpointOverride,
      environment: {
        TABLE_NAME: table.tableName,
        WITNESS_KEY_ID: key.key.keyArn,
        WITNESS_NAME: witnessName,
        LOG_KEYS: props.logKeys,
        RECOVERY_KEYS: props.recoveryKeys ?? '',
      },
    });
    // Exactly the two calls the witness makes, on its own table only.
    witness.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: [...WITNESS_TABLE_ACTIONS], resources: [table.tableArn] }),
    );
    // The key policy names the witness role as its only signer: no other role of the account can
    // be given kms:Sign by an identity policy alone (docs/witness.md, "Deployment").
    key.grantSign(witness.role, 'Witness');
    const url = witness.fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });

    const vkeyReader = new ResealFunction(this, 'VkeyReader', {
      entry: 'functions/witness/vkey-resource.ts',
      serviceName: 'reseal-witness-vkey',
      description: 'Deploy time: reads the witness public key and answers its cosigner vkey',
      removalPolicy,
      endpointOverride: props.endpointOverride,
    });
    key.grantPublicKey(vkeyReader.role, 'VkeyReader');
    const provider = new Provider(this, 'VkeyProvider', { onEventHandler: vkeyReader.fn });
    const vkey = new CustomResource(this, 'WitnessVkeyResource', {
      serviceToken: provider.serviceToken,
      properties: { KeyId: key.key.keyArn, WitnessName: witnessName },
    });

    const outputs: Record<string, [string, string]> = {
      WitnessUrl: [url.url, 'Submission prefix: POST <WitnessUrl>add-checkpoint (C2SP tlog-witness)'],
      WitnessName: [witnessName, 'Cosigner name of the witness signature lines'],
      WitnessVkey: [vkey.getAttString('Vkey'), 'Cosigner vkey (cosignature/v1) for a tlog-policy witness line'],
      WitnessKeyArn: [key.key.keyArn, 'KMS Ed25519 key of the witness (kms:GetPublicKey)'],
      WitnessTableName: [table.tableName, 'Witness state: the last cosigned checkpoint per origin'],
      WitnessFunctionName: [witness.fn.functionName, 'Witness function'],
    };
    for (const [name, [value, description]] of Object.entries(outputs)) {
      new CfnOutput(this, name, { value, description });
    }
  }
}
