import { z } from 'zod';

/**
 * An IAM principal a tenant names: an IAM role (`arn:<partition>:iam::<account>:role/<path/>name`)
 * or IAM user (`…:user/<path/>name`) ARN. Not an account (`:root`) nor a wildcard: the queue
 * policy's deny names principals by `aws:PrincipalArn`, which is a role's or a user's ARN.
 */
export const PrincipalArn = z
  .string()
  .regex(
    /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/([\w+=,.@-]+\/)*[\w+=,.@-]{1,128}$/,
    'expected an IAM role or user ARN (arn:aws:iam::<account>:role/<name> or …:user/<name>)',
  );
