/** What a service needs from the logger; Powertools `Logger` satisfies it. */
export interface ServiceLogger {
  appendKeys(attributes: Record<string, unknown>): void;
  info(message: string, ...attributes: Record<string, unknown>[]): void;
  warn(message: string, ...attributes: Record<string, unknown>[]): void;
  error(message: string, ...attributes: Record<string, unknown>[]): void;
}
