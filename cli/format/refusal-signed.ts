/** Whether a listed refusal's signed statement checked (`ResealClient.readRefusals`); absent: not checked. */
export type MaybeSigned = { readonly signatureVerified?: boolean; readonly unreadable?: string };

/**
 * Whether a listed refusal is shown as the deciding function's: its signed statement checks on
 * an item read whole. Any other is shown only in the untrusted section (cli/format/untrusted.ts).
 */
export const refusalSigned = (item: MaybeSigned): boolean => item.signatureVerified === true && !item.unreadable;
