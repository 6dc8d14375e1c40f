import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSignatureProblem } from '../../../../shared/authorship/write-signature';
import { parseStrictJson } from '../../../../shared/canonical/strict-json';
import { parseWriteRequest } from '../../../../shared/write/write-request';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const SAMPLE_FILE = join(ROOT, 'docs', 'examples', 'write-request.json');
const GUARD_DOC = join(ROOT, 'docs', 'guard.md');

/** The one ```json block of docs/guard.md's "A complete request" section. */
function documentedSample(): string {
  const doc = readFileSync(GUARD_DOC, 'utf8');
  const section = doc.split('### A complete request')[1]?.split('\n### ')[0] ?? '';
  const blocks = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  expect(blocks, 'docs/guard.md "A complete request" holds one json block').toHaveLength(1);
  return blocks[0] as string;
}

describe('docs/guard.md "A complete request": the documented residual-writes body', () => {
  it('the sample in the doc is byte for byte docs/examples/write-request.json', () => {
    expect(documentedSample()).toBe(readFileSync(SAMPLE_FILE, 'utf8'));
  });

  it('parses with the real schema (ResidualWriteRequestSchema) and its writer signature verifies', () => {
    const request = parseWriteRequest(parseStrictJson(readFileSync(SAMPLE_FILE, 'utf8'), 'sample'));
    expect(request.policy, 'an inception write carries the policy').toBeDefined();
    // Received the moment it was signed: the signature and the age window both accept it.
    expect(writeSignatureProblem(request, request.writer.signedAtMs)).toBeNull();
  });

  it('the signature covers the content: the sample with another payload is refused', () => {
    const raw = JSON.parse(readFileSync(SAMPLE_FILE, 'utf8'));
    const request = parseWriteRequest({ ...raw, payload: { conclusion: 'edited' } });
    expect(writeSignatureProblem(request, request.writer.signedAtMs)).toMatch(/does not verify/);
  });
});
