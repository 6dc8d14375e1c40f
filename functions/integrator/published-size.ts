/** The size of a published checkpoint note (its second line), 0 when none. */
export function publishedSize(published: string | null): number {
  const size = Number(published?.split('\n')[1]);
  return Number.isSafeInteger(size) && size >= 0 ? size : 0;
}
