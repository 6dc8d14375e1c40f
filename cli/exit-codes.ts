/**
 * Exit codes of the `reseal` CLI (documented in docs/cli.md and `reseal --help`).
 *
 * - `OK` (0): success; chain intact (`VERIFIED_INTACT`); no drift or ambient drift only.
 * - `UNEXPECTED` (1): an unexpected error (a bug, or an AWS call that failed for another reason).
 * - `BAD_INPUT` (2): missing or unreadable file, invalid JSON, schema failure, bad option.
 * - `ACTION_NEEDED` (10): drift the agent must act on (`PARTIAL_REPROBE_REQUIRED`,
 *   `FULL_RECONSTRUCTION_REQUIRED`) or a guard refusal (`isSafe: false`).
 * - `TAMPER` (20): tamper detected or unverifiable: any verification verdict other than
 *   `VERIFIED_INTACT`, including `UNVERIFIED_TAMPER_RISK` (fail closed).
 */
export const ExitCode = {
  OK: 0,
  UNEXPECTED: 1,
  BAD_INPUT: 2,
  ACTION_NEEDED: 10,
  TAMPER: 20,
} as const;
/** One of {@link ExitCode}. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit-code table as printed at the end of `reseal --help`. */
export const EXIT_CODE_HELP = `Exit codes:
  0   success; chain VERIFIED_INTACT; NO_DRIFT or AMBIENT_DRIFT_ONLY
  1   unexpected error
  2   bad input: missing or unreadable file, invalid JSON, schema failure, bad option
  10  action needed: PARTIAL_REPROBE_REQUIRED, FULL_RECONSTRUCTION_REQUIRED, guard refusal
  20  tamper detected or unverifiable: any verification verdict but VERIFIED_INTACT`;
