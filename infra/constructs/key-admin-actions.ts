/**
 * What the account root may do with each of Reseal's KMS keys (docs/infrastructure.md, "Key
 * policies"): administer it and read its public key (`kms:Get*`), never a cryptographic use
 * (`kms:Sign`, `kms:GenerateMac`): only the roles the key policy names use the key. AWS requires
 * a principal that can manage a key; these actions include changing its policy and creating
 * grants, so an administrator of the account can always take a key over, and is trusted to not.
 */
export const KEY_ADMIN_ACTIONS = [
  'kms:Create*',
  'kms:Describe*',
  'kms:Enable*',
  'kms:List*',
  'kms:Put*',
  'kms:Update*',
  'kms:Revoke*',
  'kms:Disable*',
  'kms:Get*',
  'kms:Delete*',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:ScheduleKeyDeletion',
  'kms:CancelKeyDeletion',
] as const;
