/** Whether `n` is odd (a right child when `n` is a node index of the RFC 9162 §2.1 tree; with `%`, not `&`: sizes pass 2^31). */
export const isOdd = (n: number): boolean => n % 2 === 1;
