/**
 * Exit codes of the `reseal` CLI (documented in docs/cli.md and `reseal --help`).
 *
 * - `OK` (0): success; chain intact (`VERIFIED_INTACT`); no drift or ambient drift only.
 * - `UNEXPECTED` (1): an unexpected error (a bug, or an AWS call that failed for another reason),
 *   a recall whose triage report did not arrive in time, a `publish --wait` with no outcome in time.
 * - `AWAITING_INTEGRATION` (3): `publish --wait`: the write is sealed (proven in its signed lineage
 *   checkpoint) but not yet `PROVEN` through the deployment log when the time ran out
 *   (`SEALED_AWAITING_INTEGRATION`, docs/cli.md, `publish --wait`); `export --receipt`: the record
 *   is not integrated yet, so no receipt with the deployment chain can be written.
 * - `BAD_INPUT` (2): missing or unreadable file, invalid JSON, schema failure, bad option; a
 *   recall of a lineage or record that does not exist, or that the triage function found invalid;
 *   a publish or recall naming a lineage outside `$RESEAL_TENANT` (`TENANT_MISMATCH`).
 * - `ACTION_NEEDED` (10): drift the agent must act on (`PARTIAL_REPROBE_REQUIRED`,
 *   `FULL_RECONSTRUCTION_REQUIRED`), a guard refusal (`isSafe: false`), or a recalled record that
 *   verified but cannot be triaged, a published write rejected or in conflict (`publish --wait`).
 * - `TAMPER` (20): tamper detected or unverifiable: any verification verdict other than
 *   `VERIFIED_INTACT`, including `UNVERIFIED_TAMPER_RISK` (fail closed, e.g. an unpinned MAC key).
 */
export const ExitCode = {
  OK: 0,
  UNEXPECTED: 1,
  BAD_INPUT: 2,
  AWAITING_INTEGRATION: 3,
  ACTION_NEEDED: 10,
  TAMPER: 20,
} as const;
/** One of {@link ExitCode}. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit-code table as printed at the end of `reseal --help`. */
export const EXIT_CODE_HELP = `Exit codes:
  0   success; chain VERIFIED_INTACT; NO_DRIFT or AMBIENT_DRIFT_ONLY
  1   unexpected error; recall: no triage report within --timeout-seconds;
      publish --wait: no outcome within --timeout-seconds
  2   bad input: missing or unreadable file, invalid JSON, schema failure, bad option;
      recall: no such lineage or record, or an invalid request;
      publish, recall: a lineage outside $RESEAL_TENANT (TENANT_MISMATCH)
  3   publish --wait: sealed, but SEALED_AWAITING_INTEGRATION when --timeout-seconds ran out
      (not yet proven through the deployment log); export --receipt: not integrated yet;
      recall: sealed, awaiting integration (a head the sealer MAC'd, past the index)
  10  action needed: PARTIAL_REPROBE_REQUIRED, FULL_RECONSTRUCTION_REQUIRED, guard refusal;
      recall: the record verified but its manifest cannot be triaged;
      publish --wait: the write was REJECTED or is in CONFLICT
  20  tamper detected or unverifiable: any verification verdict but VERIFIED_INTACT
      (verify --export: also a MAC key not pinned by --key-id, --stack or --local-key-hex)`;
