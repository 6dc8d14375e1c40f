import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_KEY_BYTES, TEST_KEY_ID } from '../../helpers/seal-factories';
import { FORGER_KEY_BYTES, FORGER_KEY_ID, TEST_KEY_HEX, writeExportFixtures } from './exports';
import { type FakeAws, startFakeAws } from './fake-aws';
import { goldenText, runCli } from './run-cli';

/**
 * Golden tests of the offline commands: each case runs the CLI in-process and compares the
 * command, exit code, stdout and stderr with `golden/<name>.txt`. Set `UPDATE_GOLDEN=1` to
 * rewrite the golden files after an intended change (then review the diff).
 */
const FIXTURES = join(import.meta.dirname, 'fixtures');
const GOLDEN = join(import.meta.dirname, 'golden');
const NOW = ['--now-ms', '1800000000000'];

interface Case {
  readonly name: string;
  readonly rule: string;
  readonly argv: readonly string[];
  readonly exitCode: number;
  /** `fixtures` (committed files) or `exports` (chains sealed at test time). */
  readonly cwd?: 'fixtures' | 'exports';
  /**
   * `aws`: a KMS endpoint is reachable (`AWS_ENDPOINT_URL` names a local fake of CloudFormation and
   * KMS holding the test key and the forger's key, with stack `reseal-test` whose MacKeyArn is the
   * test key; the default stack `ResealStack` does not exist). Default: an empty environment.
   */
  readonly env?: 'aws';
}

/** Stack of the fake endpoint whose `MacKeyArn` output is the test key. */
const FAKE_STACK = 'reseal-test';
let fakeAws: FakeAws | null = null;

let exportsDir = '';
let checkpoint = '';

const offlineCases = (): Case[] => [
  // manifest (docs/triage.md "The four recorded elements")
  {
    name: 'manifest',
    rule: 'prints the sealed dependency manifest as camelCase JSON',
    argv: ['manifest', '--env', 'baseline-env.json', '--structural', 'ARCH', '--claims', 'claims.json'],
    exitCode: 0,
  },
  {
    name: 'manifest-json',
    rule: 'docs/cli.md "One shape per concept": --json prints the reseal.manifest/1 shape, the manifest unchanged under `manifest`',
    argv: ['manifest', '--env', 'baseline-env.json', '--structural', 'ARCH', '--claims', 'claims.json', '--json'],
    exitCode: 0,
  },
  {
    name: 'manifest-structural-key-absent',
    rule: 'a structural key absent from the baseline is bad input naming the option',
    argv: ['manifest', '--env', 'baseline-env.json', '--structural', 'ARCH,KERNEL', '--claims', 'claims.json'],
    exitCode: 2,
  },
  {
    name: 'manifest-lone-surrogate-key',
    rule: 'bad input: an env key holding a lone UTF-16 surrogate is named escaped, with the real reason, exit 2',
    argv: ['manifest', '--env', 'env-lone-surrogate-key.json', '--structural', 'ARCH', '--claims', 'claims.json'],
    exitCode: 2,
  },
  {
    name: 'manifest-duplicate-env-key',
    rule: 'bad input (I-JSON RFC 7493 §2.3): a repeated env key is refused naming it, never last-wins, exit 2',
    argv: ['manifest', '--env', 'env-duplicate-key.txt', '--structural', 'ARCH', '--claims', 'claims.json'],
    exitCode: 2,
  },
  {
    name: 'manifest-duplicate-claim',
    rule: 'bad input (I-JSON RFC 7493 §2.3): a repeated claim id in the claims file is refused naming it, exit 2',
    argv: ['manifest', '--env', 'baseline-env.json', '--claims', 'claims-duplicate-key.txt'],
    exitCode: 2,
  },
  {
    name: 'manifest-absent-keys',
    rule: "keys declared absent (--structural-absent, a claim's absentKeys) give a format-2 manifest with absentKeys",
    argv: [
      'manifest',
      '--env',
      'baseline-env.json',
      '--structural',
      'ARCH',
      '--structural-absent',
      'LD_PRELOAD',
      '--claims',
      'claims-absent.json',
    ],
    exitCode: 0,
  },
  {
    name: 'manifest-absent-key-present',
    rule: 'bad input: a key declared absent that is in the baseline is refused, naming the option or the claim, exit 2',
    argv: [
      'manifest',
      '--env',
      'baseline-env.json',
      '--structural-absent',
      'HOSTNAME',
      '--claims',
      'claims-absent-key-present.json',
    ],
    exitCode: 2,
  },
  {
    name: 'manifest-causal-key-absent',
    rule: 'a causal key absent from the baseline is bad input naming the claims file and claim',
    argv: ['manifest', '--env', 'baseline-env.json', '--claims', 'claims-unknown-key.json'],
    exitCode: 2,
  },
  // triage (docs/triage.md)
  {
    name: 'triage-no-drift',
    rule: 'docs/triage.md: an unchanged environment is NO_DRIFT, exit 0',
    argv: ['triage', '--manifest', 'manifest.json', '--env', 'baseline-env.json'],
    exitCode: 0,
  },
  {
    name: 'triage-ambient',
    rule: 'docs/triage.md rules 8 and 10: only ambient keys drifted is AMBIENT_DRIFT_ONLY, exit 0',
    argv: ['triage', '--manifest', 'manifest.json', '--env', 'env-ambient.json'],
    exitCode: 0,
  },
  {
    name: 'triage-partial',
    rule: 'docs/triage.md rules 7 and 10: a drifted causal key quarantines its claim, exit 10',
    argv: ['triage', '--manifest', 'manifest.json', '--env', 'env-partial.json'],
    exitCode: 10,
  },
  {
    name: 'triage-partial-json',
    rule: 'docs/cli.md "One shape per concept": --json prints the reseal.delta/1 shape (verdict, changed, retainedClaims, invalidatedClaims, camelCase)',
    argv: ['triage', '--manifest', 'manifest.json', '--env', 'env-partial.json', '--json'],
    exitCode: 10,
  },
  {
    name: 'triage-structural-json',
    rule: 'docs/triage.md rule 6: a drifted structural key forces FULL_RECONSTRUCTION_REQUIRED, exit 10',
    argv: ['triage', '--manifest', 'manifest.json', '--env', 'env-structural.json', '--json'],
    exitCode: 10,
  },
  {
    name: 'triage-absent-key-appeared',
    rule: 'a key the manifest declares absent that appears invalidates the claims resting on its absence, exit 10',
    argv: ['triage', '--manifest', 'manifest-absent.json', '--env', 'env-proxy.json'],
    exitCode: 10,
  },
  {
    name: 'triage-structural-absent-appeared-json',
    rule: 'a structural key declared absent that appears is FULL_RECONSTRUCTION_REQUIRED, exit 10',
    argv: ['triage', '--manifest', 'manifest-absent.json', '--env', 'env-preload.json', '--json'],
    exitCode: 10,
  },
  {
    name: 'triage-missing-file',
    rule: 'bad input: a missing file is named, exit 2',
    argv: ['triage', '--manifest', 'no-such-manifest.json', '--env', 'baseline-env.json'],
    exitCode: 2,
  },
  {
    name: 'triage-invalid-json',
    rule: 'bad input: invalid JSON names the file and the parse error, exit 2',
    argv: ['triage', '--manifest', 'manifest.json', '--env', 'invalid-json.txt'],
    exitCode: 2,
  },
  {
    name: 'triage-proto-key',
    rule: 'bad input: a __proto__ key is refused, naming the file, exit 2',
    argv: ['triage', '--manifest', 'manifest.json', '--env', 'env-proto.json'],
    exitCode: 2,
  },
  {
    name: 'triage-duplicate-manifest-key',
    rule: 'bad input (I-JSON RFC 7493 §2.3): a repeated key inside the manifest is refused at its path, exit 2',
    argv: ['triage', '--manifest', 'manifest-duplicate-key.txt', '--env', 'baseline-env.json'],
    exitCode: 2,
  },
  {
    name: 'triage-non-string-value',
    rule: 'bad input: a non-string env value names the file and the key, exit 2',
    argv: ['triage', '--manifest', 'manifest.json', '--env', 'env-number.json'],
    exitCode: 2,
  },
  {
    name: 'triage-unknown-field',
    rule: 'bad input: an unknown manifest field names the file and the field, exit 2',
    argv: ['triage', '--manifest', 'manifest-unknown-field.json', '--env', 'baseline-env.json'],
    exitCode: 2,
  },
  {
    name: 'triage-corrupt-seal',
    rule: 'bad input: a manifest whose seal does not match its key hashes is refused, exit 2',
    argv: ['triage', '--manifest', 'manifest-bad-seal.json', '--env', 'baseline-env.json'],
    exitCode: 2,
  },
  {
    name: 'triage-missing-option',
    rule: 'bad input: a missing required option, exit 2',
    argv: ['triage', '--manifest', 'manifest.json'],
    exitCode: 2,
  },
  // guard (docs/guard.md)
  {
    name: 'guard-safe',
    rule: 'docs/guard.md: fresh, re-verified and declared constant variables pass, exit 0',
    argv: ['guard', '--request', 'request-safe.json', ...NOW],
    exitCode: 0,
  },
  {
    name: 'guard-stale',
    rule: 'docs/guard.md V4: an unverified inherited variable refuses the write, exit 10',
    argv: ['guard', '--request', 'request-stale.json', ...NOW],
    exitCode: 10,
  },
  {
    name: 'guard-stale-json',
    rule: 'docs/cli.md "One shape per concept": --json prints the reseal.guard-verdict/1 shape (isSafe, rejectedVariables with reasons, verdictDigest)',
    argv: ['guard', '--request', 'request-stale.json', '--json', ...NOW],
    exitCode: 10,
  },
  {
    name: 'guard-expired-receipts',
    rule: 'docs/guard.md R6: receipts older than --max-receipt-age-seconds are refused, exit 10',
    argv: ['guard', '--request', 'request-safe.json', '--now-ms', '1800003600000', '--json'],
    exitCode: 10,
  },
  {
    name: 'guard-historical',
    rule: 'docs/guard.md "HISTORICAL_ATTRIBUTION and operational authority": a safe historical write is said to carry no operational authority, exit 0',
    argv: ['guard', '--request', 'request-historical.json', ...NOW],
    exitCode: 0,
  },
  {
    name: 'guard-historical-json',
    rule: 'docs/guard.md "HISTORICAL_ATTRIBUTION and operational authority": --json names the authority and that it is not operational',
    argv: ['guard', '--request', 'request-historical.json', '--json', ...NOW],
    exitCode: 0,
  },
  {
    name: 'guard-unknown-field',
    rule: 'bad input: an unknown request field names the file and the field, exit 2',
    argv: ['guard', '--request', 'request-unknown-field.json', ...NOW],
    exitCode: 2,
  },
  {
    name: 'guard-bad-manifest-seal',
    rule: 'bad input: a manifest whose preconditionSeal is not the seal of its key hashes is refused at manifest.preconditionSeal, no verdict, exit 2',
    argv: ['guard', '--request', 'request-bad-seal.json', ...NOW],
    exitCode: 2,
  },
  {
    name: 'guard-duplicate-epoch',
    rule: 'bad input (I-JSON RFC 7493 §2.3): a repeated generationEpoch is refused naming it, no verdict, exit 2',
    argv: ['guard', '--request', 'request-duplicate-epoch.txt', ...NOW],
    exitCode: 2,
  },
  {
    name: 'verify-duplicate-key',
    rule: 'bad input (I-JSON RFC 7493 §2.3): a repeated key inside an export record is refused at its path, exit 2',
    argv: ['verify', '--export', 'export-duplicate-key.txt'],
    exitCode: 2,
  },
  {
    name: 'guard-bad-option',
    rule: 'bad input: a non-integer option value, exit 2',
    argv: ['guard', '--request', 'request-safe.json', '--now-ms', 'yesterday'],
    exitCode: 2,
  },
];

const exportCases = (): Case[] => [
  {
    name: 'verify-intact-local-key',
    rule: 'docs/sealing.md: an intact chain with its key reachable is VERIFIED_INTACT, exit 0',
    argv: ['verify', '--export', 'intact.json', '--local-key-hex', TEST_KEY_HEX],
    exitCode: 0,
  },
  {
    name: 'verify-intact-json',
    rule: 'docs/sealing.md: --json lists every record with its verdict',
    argv: ['verify', '--export', 'intact.json', '--local-key-hex', TEST_KEY_HEX, '--checkpoint', checkpoint, '--json'],
    exitCode: 0,
  },
  {
    name: 'verify-intact-no-key',
    rule: 'docs/sealing.md verification step 15′ (fail closed): no endpoint, credentials or key gives UNVERIFIED_TAMPER_RISK (fail closed), exit 20',
    argv: ['verify', '--export', 'intact.json'],
    exitCode: 20,
  },
  {
    name: 'verify-payload-edited-no-key',
    rule: 'docs/sealing.md: a broken payload hash is HASH_MISMATCH even when MACs cannot be checked, exit 20',
    argv: ['verify', '--export', 'payload-edited.json'],
    exitCode: 20,
  },
  {
    name: 'verify-record-deleted-no-key',
    rule: 'docs/sealing.md: a record deleted from the middle is LINEAGE_BROKEN even offline, exit 20',
    argv: ['verify', '--export', 'record-deleted.json', '--json'],
    exitCode: 20,
  },
  {
    name: 'verify-tail-cut-checkpoint',
    rule: 'docs/sealing.md "Verification", truncation: a chain ending before a kept checkpoint is TRUNCATION_DETECTED, exit 20',
    argv: ['verify', '--export', 'tail-cut.json', '--local-key-hex', TEST_KEY_HEX, '--checkpoint', checkpoint],
    exitCode: 20,
  },
  {
    name: 'verify-forged-local-key',
    rule: 'docs/sealing.md verification step 15: a record re-signed without the key is HASH_MISMATCH, exit 20',
    argv: ['verify', '--export', 'forged.json', '--local-key-hex', TEST_KEY_HEX],
    exitCode: 20,
  },
  {
    name: 'verify-head-rewound',
    rule: "the export's stored head is a claim checked against the records: a head rewound below them is LINEAGE_BROKEN, exit 20",
    argv: ['verify', '--export', 'head-rewound.json', '--local-key-hex', TEST_KEY_HEX],
    exitCode: 20,
  },
  {
    name: 'verify-head-missing',
    rule: 'records exported without a head are LINEAGE_BROKEN, exit 20',
    argv: ['verify', '--export', 'head-missing.json', '--local-key-hex', TEST_KEY_HEX],
    exitCode: 20,
  },
  // Key pinning (fail closed): the key that checks the MACs comes from the verifier, never the export.
  {
    name: 'verify-intact-unpinned',
    rule: 'fail closed: KMS reachable but the key id only named by the export (no --key-id, stack unreadable) is UNVERIFIED_TAMPER_RISK, exit 20',
    argv: ['verify', '--export', 'intact.json'],
    exitCode: 20,
    env: 'aws',
  },
  {
    name: 'verify-rekeyed-unpinned',
    rule: 'fail closed: an export re-chained and re-MACed under a new key is never VERIFIED_INTACT without a pinned key, exit 20',
    argv: ['verify', '--export', 'rekeyed.json', '--json'],
    exitCode: 20,
    env: 'aws',
  },
  {
    name: 'verify-intact-stack-pinned',
    rule: 'the key pinned from the MacKeyArn output of --stack verifies an intact chain through KMS, exit 0',
    argv: ['verify', '--export', 'intact.json', '--stack', FAKE_STACK],
    exitCode: 0,
    env: 'aws',
  },
  {
    name: 'verify-rekeyed-stack-pinned',
    rule: "an export re-MACed under another key, with the stack's key pinned, is not intact, exit 20",
    argv: ['verify', '--export', 'rekeyed.json', '--stack', FAKE_STACK],
    exitCode: 20,
    env: 'aws',
  },
  {
    name: 'verify-rekeyed-key-id-pinned',
    rule: 'an export re-MACed under another key, with --key-id pinning the right key, is not intact, exit 20',
    argv: ['verify', '--export', 'rekeyed.json', '--key-id', TEST_KEY_ID],
    exitCode: 20,
    env: 'aws',
  },
  {
    name: 'verify-rekeyed-local-key',
    rule: 'an export re-MACed under another key, checked with the right local key, is HASH_MISMATCH, exit 20',
    argv: ['verify', '--export', 'rekeyed.json', '--local-key-hex', TEST_KEY_HEX],
    exitCode: 20,
  },
  {
    name: 'verify-stack-missing',
    rule: 'an explicit --stack that cannot be read is an error (the key cannot be pinned), exit 1',
    argv: ['verify', '--export', 'intact.json', '--stack', 'no-such-stack'],
    exitCode: 1,
    env: 'aws',
  },
  {
    name: 'verify-unknown-field',
    rule: 'bad input: an export with an unknown field names the file and the field, exit 2',
    argv: ['verify', '--export', 'unknown-field.json'],
    exitCode: 2,
  },
  {
    name: 'verify-bad-checkpoint',
    rule: 'bad input: a malformed --checkpoint, exit 2',
    argv: ['verify', '--export', 'intact.json', '--checkpoint', '3:nothex'],
    exitCode: 2,
  },
  {
    name: 'verify-bad-key-hex',
    rule: 'bad input: a local key shorter than 32 bytes, exit 2',
    argv: ['verify', '--export', 'intact.json', '--local-key-hex', 'abcd'],
    exitCode: 2,
  },
  {
    name: 'inspect-intact',
    rule: 'inspect prints a timeline with seqs, epochs, authority and verdicts',
    argv: ['inspect', '--export', 'intact.json', '--local-key-hex', TEST_KEY_HEX],
    exitCode: 0,
  },
  {
    name: 'inspect-payload-edited',
    rule: 'inspect marks the first bad record and every later one, exit 20',
    argv: ['inspect', '--export', 'payload-edited.json', '--local-key-hex', TEST_KEY_HEX],
    exitCode: 20,
  },
  {
    name: 'verify-empty-key-id',
    rule: "--key-id '' pins no key: bad input, exit 2",
    argv: ['verify', '--export', 'intact.json', '--key-id', ''],
    exitCode: 2,
  },
  {
    name: 'inspect-head-rewound',
    rule: "inspect --export checks the export's stored head against its records as verify --export does: a rewound head is LINEAGE_BROKEN, exit 20",
    argv: ['inspect', '--export', 'head-rewound.json', '--local-key-hex', TEST_KEY_HEX],
    exitCode: 20,
  },
];

beforeAll(async () => {
  exportsDir = await mkdtemp(join(tmpdir(), 'reseal-cli-'));
  ({ checkpoint } = await writeExportFixtures(exportsDir));
  fakeAws = await startFakeAws({
    stacks: { [FAKE_STACK]: TEST_KEY_ID },
    keys: { [TEST_KEY_ID]: TEST_KEY_BYTES, [FORGER_KEY_ID]: FORGER_KEY_BYTES },
  });
  // The SDK reads credentials from the process environment: static ones, never a real account.
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
  vi.stubEnv('AWS_PROFILE', undefined);
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await fakeAws?.close();
  if (exportsDir) await rm(exportsDir, { recursive: true, force: true });
});

async function checkGolden(testCase: Case): Promise<void> {
  const cwd = testCase.cwd === 'exports' ? exportsDir : FIXTURES;
  const env =
    testCase.env === 'aws' && fakeAws ? { AWS_ENDPOINT_URL: fakeAws.url, AWS_REGION: 'us-east-1' } : undefined;
  const result = await runCli(testCase.argv, { cwd, ...(env ? { env } : {}) });
  const text = goldenText(testCase.argv, result);
  const file = join(GOLDEN, `${testCase.name}.txt`);
  if (process.env.UPDATE_GOLDEN === '1') await writeFile(file, text);
  expect(result.exitCode).toBe(testCase.exitCode);
  expect(text).toBe(await readFile(file, 'utf8'));
}

describe('reseal offline commands (golden files)', () => {
  for (const testCase of offlineCases()) {
    it(`${testCase.name}: ${testCase.rule}`, () => checkGolden(testCase));
  }
  // Export cases need the checkpoint computed in beforeAll, so they are built lazily.
  for (const template of exportCases()) {
    it(`${template.name}: ${template.rule}`, async () => {
      const testCase = exportCases().find((c) => c.name === template.name) as Case;
      await checkGolden({ ...testCase, cwd: 'exports' });
    });
  }
});
