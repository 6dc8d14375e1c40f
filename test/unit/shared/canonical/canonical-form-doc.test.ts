import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deduplicationIdOf } from '../../../../adapters/deduplication-id';
import { canonicalJson } from '../../../../shared/canonical/canonical-json';
import { HashDomain, SEAL_DEDUP_TAG } from '../../../../shared/canonical/hash-domain';
import { CanonicalizationError, InvalidInputError } from '../../../../shared/errors';
import {
  conflictOutcomeContentDigest,
  OUTCOME_NOTE_TAG,
  rejectionOutcomeContentDigest,
} from '../../../../shared/log/outcome-statement';
import type { ConflictRecord, RejectionRecord } from '../../../../shared/ports/lineage-store';
import { parseEnvSnapshot } from '../../../../shared/schemas/env-snapshot';
import { genesisParentHash } from '../../../../shared/seal/genesis-parent-hash';
import { payloadHash } from '../../../../shared/seal/payload-hash';
import { compositeSeal } from '../../../../shared/triage/composite-seal';
import { envKeyHash } from '../../../../shared/triage/env-key-hash';
import { manifestDigest } from '../../../../shared/triage/manifest-digest';
import { requestDigest } from '../../../../shared/write/request-digest';
import { valueDigest } from '../../../../shared/write/value-digest';
import { validWriteRequest } from '../../../helpers/guard-factories';
import { codeSpans, docPage, section, tableRows } from '../../../helpers/markdown';

const page = docPage('canonical-form.md');
const tagRows = tableRows(section(page, 'Tags and input objects'));
/** The tag a row of the table names (its second column). */
const tagOf = (row: string[]) => codeSpans(row[1] ?? '')[0] ?? '';
const rowOf = (tag: string) => {
  const row = tagRows.find((r) => tagOf(r) === tag);
  if (!row) throw new Error(`docs/canonical-form.md lists no ${tag}`);
  return row;
};

const sha256 = (...parts: (string | Uint8Array)[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
};
/** The documented layout: `SHA-256( ASCII(tag) || 0x00 || UTF-8(RFC 8785 text) )`. */
const documented = (tag: string, value: unknown) => sha256(tag, new Uint8Array([0]), canonicalJson(value));

/** The member names a cell spells inside the first `{ … }` after `label`, in order. */
function membersAfter(cell: string, label: string): string[] {
  const from = cell.indexOf(label);
  const object = /\{([^}]*)\}/.exec(cell.slice(from))?.[1] ?? '';
  // A member name is a quoted word not preceded by `: ` (that is a value, as in `"kind": "REJECTED"`).
  return [...object.matchAll(/(?<!: )"(\w+)"/g)].map((m) => m[1] as string);
}

/** Every quoted `reseal/v1/…` literal in the production sources. */
function tagLiteralsInProduction(): Map<string, string[]> {
  const root = new URL('../../../../', import.meta.url).pathname;
  const found = new Map<string, string[]>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        const code = readFileSync(join(root, path), 'utf8').replace(/^\s*(\*|\/\/).*$/gm, '');
        for (const m of code.matchAll(/['"`](reseal\/v1\/[a-z-]+)/g)) {
          found.set(m[1] as string, [...(found.get(m[1] as string) ?? []), path]);
        }
      }
    }
  };
  for (const dir of ['shared', 'functions', 'adapters', 'client', 'cli', 'mcp']) walk(dir);
  return found;
}

describe('docs/canonical-form.md "Tags and input objects" against the code', () => {
  it('lists exactly the hash tags the code declares (HashDomain and SEAL_DEDUP_TAG, shared/canonical/hash-domain.ts)', () => {
    expect(tagRows.map(tagOf).sort()).toEqual([...Object.values(HashDomain), SEAL_DEDUP_TAG].sort());
  });

  it('no production file spells a reseal/v1/ tag the table does not list (the outcome note tag is a signed-note line, docs/verifiable-log.md)', () => {
    const listed = new Set(tagRows.map(tagOf));
    const unlisted = [...tagLiteralsInProduction()].filter(([tag]) => !listed.has(tag) && tag !== OUTCOME_NOTE_TAG);
    expect(unlisted).toEqual([]);
  });

  it('write-request: SHA-256(tag || 0x00 || JCS(request)) is requestDigest', () => {
    const request = validWriteRequest();
    expect(rowOf(HashDomain.WRITE_REQUEST)[3]).toContain('requestDigest');
    expect(requestDigest(request)).toBe(documented(HashDomain.WRITE_REQUEST, request));
  });

  it('outcome-content: the members the table lists, hashed with the documented layout, are the content digests', () => {
    const cell = rowOf(HashDomain.OUTCOME_CONTENT)[2] ?? '';
    const rejection: RejectionRecord = {
      stage: 'GUARD',
      reason: 'STALE_STATE',
      lineageId: 'lineage-1',
      residualId: 'r-1',
      messageId: 'm-1',
      verdictDigest: 'a'.repeat(64),
      bodyDigest: 'b'.repeat(64),
      bodyPreview: '{"x":1}',
      issues: [{ path: '', message: 'stale' }],
      rejectedVariables: [{ name: 'v', reason: 'UNVERIFIED_INHERITED', detail: 'not re-probed' }],
      requestViolations: [],
      atMs: 1,
      requestDigest: null,
      statement: null,
    };
    const conflict: ConflictRecord = {
      lineageId: 'lineage-1',
      residualId: 'r-1',
      reason: 'LOST_RACE',
      detail: 'head moved',
      attemptedHeader: { seq: 1 },
      expectedHead: null,
      observedHead: null,
      atMs: 1,
      messageId: 'm-1',
      requestDigest: null,
      statement: null,
    };
    const pick = (record: object, names: string[]) =>
      Object.fromEntries(
        names.map((name) => [
          name,
          name in record ? (record as Record<string, unknown>)[name] : name === 'v' ? 1 : undefined,
        ]),
      );
    const rejected = { ...pick(rejection, membersAfter(cell, 'a rejection')), kind: 'REJECTED' };
    const conflicted = { ...pick(conflict, membersAfter(cell, 'a conflict')), kind: 'CONFLICT' };
    expect(Object.keys(rejected)).toHaveLength(8);
    expect(Object.keys(conflicted)).toHaveLength(6);
    expect(rejectionOutcomeContentDigest(rejection)).toBe(documented(HashDomain.OUTCOME_CONTENT, rejected));
    expect(conflictOutcomeContentDigest(conflict)).toBe(documented(HashDomain.OUTCOME_CONTENT, conflicted));
  });

  it('seal-dedup: SHA-256(tag || 0x0A || JCS(request)), the other layout, is the MessageDeduplicationId', () => {
    const request = validWriteRequest();
    expect(rowOf(SEAL_DEDUP_TAG)[2]).toContain('0x0A');
    expect(deduplicationIdOf(request)).toBe(sha256(SEAL_DEDUP_TAG, '\n', canonicalJson(request)));
    expect(deduplicationIdOf(request)).not.toBe(documented(SEAL_DEDUP_TAG, request));
  });
});

describe('docs/canonical-form.md "Worked examples" against the code', () => {
  const examples = section(page, 'Worked examples (checked by an independent Python script, see below)');
  /** The 64-hex digest on the first `= <hex>` line at or after `label`. */
  const digestAfter = (label: string): string => {
    const from = examples.indexOf(label);
    if (from < 0) throw new Error(`no worked example ${label}`);
    const hex = /= ([0-9a-f]{64})\b/.exec(examples.slice(from))?.[1];
    if (!hex) throw new Error(`no digest after ${label}`);
    return hex;
  };
  /** The text after `message = ` on the first such line at or after `label`. */
  const messageAfter = (label: string): string =>
    /message = (\S+)/.exec(examples.slice(examples.indexOf(label)))?.[1] ?? '';

  it('every digest and message shown is what the code computes', () => {
    const arch = envKeyHash('ARCH', 'arm64');
    const host = envKeyHash('HOSTNAME', 'ip-10-0-0-12');
    expect(messageAfter('envKeyHash("ARCH"')).toBe(canonicalJson({ v: 1, key: 'ARCH', value: 'arm64' }));
    expect(digestAfter('envKeyHash("ARCH"')).toBe(arch);
    expect(digestAfter('envKeyHash("HOSTNAME"')).toBe(host);
    expect(digestAfter('compositeSeal({ ARCH')).toBe(compositeSeal({ ARCH: arch, HOSTNAME: host }));
    expect(messageAfter('compositeSeal({})')).toBe(canonicalJson({ v: 1, baselineKeyHashes: {} }));
    expect(digestAfter('compositeSeal({})')).toBe(compositeSeal({}));
    expect(messageAfter('genesis("lineage-1")')).toBe(canonicalJson({ v: 1, lineageId: 'lineage-1' }));
    expect(digestAfter('genesis("lineage-1")')).toBe(genesisParentHash('lineage-1'));
    expect(messageAfter('value("arm64")')).toBe(canonicalJson({ v: 1, value: 'arm64' }));
    expect(digestAfter('value("arm64")')).toBe(valueDigest('arm64'));
    expect(messageAfter('payload(')).toBe(canonicalJson({ b: [1, 2], a: 'x' }));
    expect(digestAfter('payload(')).toBe(payloadHash({ b: [1, 2], a: 'x' }));
  });

  it('the format-2 manifest digest is that of the format-2 cases of test/vectors/triage.json', () => {
    const vectors = JSON.parse(readFileSync(new URL('../../../vectors/triage.json', import.meta.url), 'utf8')) as {
      cases: { name: string; expected: { manifest: unknown; manifestDigest: string } }[];
    };
    const format2 = vectors.cases.filter((c) => c.name.startsWith('format 2'));
    expect(format2.length).toBeGreaterThan(0);
    for (const c of format2) {
      expect(manifestDigest(c.expected.manifest)).toBe(c.expected.manifestDigest);
      expect(c.expected.manifestDigest).toBe(digestAfter('manifest, format 2'));
    }
  });
});

describe('docs/canonical-form.md "Hostile-string policy" against the code', () => {
  const policy = section(docPage('canonical-form.md'), 'Hostile-string policy');
  /** Whether an environment (a map-shaped wire input) with `key: value` is accepted. */
  const accepts = (env: Record<string, string>) => {
    try {
      parseEnvSnapshot(env, 'env');
      return true;
    } catch (error) {
      if (error instanceof InvalidInputError) return false;
      throw error;
    }
  };

  it('map keys: 1 to 512 UTF-16 units, no control character, never __proto__, no two equal after NFC', () => {
    expect(policy).toContain('empty keys and keys over 512 UTF-16 units');
    expect(accepts({ ['k'.repeat(512)]: 'v' })).toBe(true);
    expect(accepts({ ['k'.repeat(513)]: 'v' })).toBe(false);
    // Not printable ASCII: decided by the schema itself, not the hot path's pattern.
    expect(accepts({ ['\u00e9'.repeat(512)]: 'v' })).toBe(true);
    expect(accepts({ ['\u00e9'.repeat(513)]: 'v' })).toBe(false);
    expect(accepts({ '': 'v' })).toBe(false);
    expect(accepts({ 'a\u0000b': 'v' })).toBe(false);
    expect(accepts({ 'a\u007fb': 'v' })).toBe(false);
    expect(accepts(JSON.parse('{"__proto__":"v"}') as Record<string, string>)).toBe(false);
    expect(accepts({ '\u00e9': 'v', e\u0301: 'w' })).toBe(false);
    expect(accepts({ '\u00e9': 'v' })).toBe(true);
  });

  it('environment values: any well-formed string up to 65,536 UTF-16 units', () => {
    expect(policy).toContain('environment values are any well-formed string up to\n  65,536 UTF-16 units');
    expect(accepts({ K: 'v'.repeat(65_536) })).toBe(true);
    expect(accepts({ K: 'v'.repeat(65_537) })).toBe(false);
    expect(accepts({ K: 'a\ud800b' })).toBe(false);
  });

  it('the canonicalizer refuses a lone surrogate and keeps __proto__ as an ordinary key', () => {
    expect(() => canonicalJson({ k: 'a\udc00' })).toThrow(CanonicalizationError);
    expect(canonicalJson(JSON.parse('{"__proto__":1,"a":2}'))).toBe('{"__proto__":1,"a":2}');
  });
});
