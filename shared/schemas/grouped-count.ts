/** `1,500,000`: a count as the limits' messages write it. */
export const groupedCount = (n: number): string => n.toLocaleString('en-US');
