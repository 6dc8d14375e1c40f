import * as iam from 'aws-cdk-lib/aws-iam';
import { KEY_ADMIN_ACTIONS } from './key-admin-actions';

/**
 * A key policy whose only statement lets the account administer the key (AWS requires a
 * principal that can manage it) with {@link KEY_ADMIN_ACTIONS}: no cryptographic use beyond
 * reading a public key, so no identity policy in the account can grant one
 * (docs/infrastructure.md, "Key policies").
 */
export function accountAdministersPolicy(sid = 'AccountAdministersButDoesNotSign'): iam.PolicyDocument {
  return new iam.PolicyDocument({
    statements: [
      new iam.PolicyStatement({
        sid,
        principals: [new iam.AccountRootPrincipal()],
        actions: [...KEY_ADMIN_ACTIONS],
        resources: ['*'],
      }),
    ],
  });
}
