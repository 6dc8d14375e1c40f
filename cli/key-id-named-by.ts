/** Key id named by the first record that names one (the records are untrusted; only a hint). */
export function keyIdNamedBy(records: readonly unknown[]): string | null {
  for (const record of records) {
    const keyId = (record as { header?: { keyId?: unknown } } | null)?.header?.keyId;
    if (typeof keyId === 'string' && keyId.length > 0) return keyId;
  }
  return null;
}
