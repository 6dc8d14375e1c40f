/** The message of a thrown value, for a line that names what failed: an `Error`'s message, else the value as a string. */
export const describeError = (error: unknown) => (error instanceof Error ? error.message : String(error));
