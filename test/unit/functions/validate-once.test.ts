import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseSealRequest } from '../../../functions/sealer/seal-request-parse';
import * as canonical from '../../../shared/canonical/canonical-json';
import type { Validated } from '../../../shared/schemas/validated';
import { type ResidualWriteRequest, ResidualWriteRequestSchema } from '../../../shared/write/write-request';
import { sealRequestBody } from '../../helpers/factories';
import { FACTORY_NOW_MS, validWriteRequest } from '../../helpers/guard-factories';
import { testGuardService, testSealerService } from '../../helpers/service-factories';

// Every canonicalization of a payload goes through this module; the spies pass each call through.
vi.mock('../../../shared/canonical/canonical-json', async (original) => {
  const actual = await original<typeof import('../../../shared/canonical/canonical-json')>();
  return {
    ...actual,
    canonicalJson: vi.fn(actual.canonicalJson),
    canonicalJsonNotingReservedKey: vi.fn(actual.canonicalJsonNotingReservedKey),
  };
});

const PAYLOAD = { conclusion: 'validate-once marker', checks: [1, 2, 3] };
const PAYLOAD_TEXT = JSON.stringify(PAYLOAD);

/**
 * Canonicalizations of the payload, on its own or inside the write request (a value with both
 * `residualId` and `payload`). Storing the sealed record canonicalizes it too; that is the
 * record's stored form, not a check of the write, and is not counted.
 */
function payloadCanonicalizations(): number {
  const args = [
    ...vi.mocked(canonical.canonicalJson).mock.calls.map(([value]) => value),
    ...vi.mocked(canonical.canonicalJsonNotingReservedKey).mock.calls.map(([value]) => value),
  ];
  const isWrite = (value: unknown) =>
    typeof value === 'object' && value !== null && 'residualId' in value && 'payload' in value;
  return args.filter((value) => isWrite(value) || JSON.stringify(value) === PAYLOAD_TEXT).length;
}

function counting() {
  vi.mocked(canonical.canonicalJson).mockClear();
  vi.mocked(canonical.canonicalJsonNotingReservedKey).mockClear();
  return vi.spyOn(ResidualWriteRequestSchema, 'safeParse');
}

afterEach(() => vi.restoreAllMocks());

// Each Lambda validates a write once at its boundary and passes the branded value inward (shared/schemas/validated.ts).
describe('a write is validated once per boundary', () => {
  it('the guard parses an accepted write once (no schema parse of the write) and canonicalizes its payload once', async () => {
    const { service, queue } = testGuardService();
    const body = JSON.stringify(validWriteRequest({ payload: PAYLOAD }));
    const parses = counting();
    const outcome = await service.handle({ messageId: 'm-1', body, sentAtMs: FACTORY_NOW_MS - 5 });
    expect(outcome.kind).toBe('ACCEPTED');
    expect(queue.sent).toHaveLength(1);
    expect(parses).toHaveBeenCalledTimes(0);
    // The payload check's one text also gives the payloadHash the writer signed (docs/authorship.md,
    // "Signed writes"), which the guard recomputes; the rules themselves add none.
    expect(payloadCanonicalizations()).toBe(1);
  });

  it('the sealer parses a seal request once (no schema parse of the write) and canonicalizes its payload once', async () => {
    const { service } = testSealerService();
    const body = sealRequestBody({ payload: PAYLOAD });
    const parses = counting();
    const outcome = await service.handle({ messageId: 'm-1', body, sentAtMs: FACTORY_NOW_MS + 1 });
    expect(outcome.kind).toBe('SEALED');
    expect(parses).toHaveBeenCalledTimes(0);
    expect(payloadCanonicalizations()).toBe(1);
  });

  it("the sealer's parsed seal request carries its write branded, so the guard's rules take it without a cast (checked by tsc)", () => {
    const parsed = parseSealRequest(JSON.parse(sealRequestBody({ payload: PAYLOAD })));
    if ('detail' in parsed) throw new Error(parsed.detail);
    const write: Validated<ResidualWriteRequest> = parsed.request.request;
    expect(write.payload).toEqual(PAYLOAD);
  });
});
