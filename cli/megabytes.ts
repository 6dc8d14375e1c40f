/** `12.3 MB`: a byte count in decimal megabytes, one decimal, for progress lines. */
export const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
