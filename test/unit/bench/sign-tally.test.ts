import { describe, expect, it } from 'vitest';
import { freshnessReport } from '../../../bench/stack/freshness-bench';
import { SignTally, signsSince } from '../../../bench/stack/sign-tally';

const keys = {
  logKeyArn: 'arn:aws:kms:us-east-1:000000000000:key/log-key',
  logName: 'reseal/ResealStack',
  guardKeyArn: 'arn:aws:kms:us-east-1:000000000000:key/guard-key',
  sealerKeyArn: 'arn:aws:kms:us-east-1:000000000000:key/sealer-key',
  witnessKeyArn: 'arn:aws:kms:us-east-1:000000000000:key/witness-key',
};
const sign = (keyId: string, text: string) =>
  Buffer.from(JSON.stringify({ KeyId: keyId, Message: Buffer.from(text).toString('base64'), MessageType: 'RAW' }));

// The freshness bench's Sign split (docs/deployment-log.md, "Freshness window and interval").
describe('SignTally: KMS Sign calls by signer', () => {
  it('tells the integrator, the sealer (checkpoints and refusals), the guard and the witness apart by key and by origin', () => {
    const tally = new SignTally(keys);
    const before = tally.snapshot();
    tally.observe('KMS', 'Sign', sign(keys.logKeyArn, 'reseal/ResealStack\n7\nroot=\n'));
    tally.observe('KMS', 'Sign', sign('log-key', 'reseal/ResealStack/lin-1\n3\nroot=\n'));
    tally.observe('KMS', 'Sign', sign(keys.logKeyArn, 'reseal/ResealStack/lin-2\n1\nroot=\n'));
    tally.observe('KMS', 'Sign', sign(keys.logKeyArn, '{"refusal":1}'));
    tally.observe('KMS', 'Sign', sign(keys.guardKeyArn, 'refusal'));
    tally.observe('KMS', 'Sign', sign(keys.sealerKeyArn, 'reseal/v1/outcome\n{}\n'));
    tally.observe('KMS', 'Sign', sign('sealer-key', 'reseal/v1/outcome\n{}\n'));
    tally.observe('KMS', 'Sign', sign(keys.witnessKeyArn, 'cosignature/v1\ntime 1\n'));
    tally.observe('KMS', 'Sign', sign('arn:aws:kms:us-east-1:000000000000:key/other', 'x'));
    tally.observe('KMS', 'GenerateMac', sign(keys.logKeyArn, 'reseal/ResealStack\n'));
    tally.observe('DynamoDB', 'Sign', Buffer.from('{}'));
    tally.observe('KMS', 'Sign', Buffer.from('not json'));
    expect(Object.fromEntries(signsSince(tally.snapshot(), before))).toEqual({
      'integrator (deployment checkpoint)': 1,
      'sealer (lineage checkpoint)': 2,
      'log key (other)': 1,
      'sealer (refusals)': 2,
      'guard (refusals)': 1,
      'witness (cosignature)': 1,
      'other key': 2,
    });
  });

  it("the report prints Sign per write, the integrator's own share and the latency target, each with ✓ or ✗", () => {
    const lines = freshnessReport(
      {
        writes: 100,
        seconds: 3,
        publishSeconds: 2,
        nominalWritesPerSecond: 50,
        unproven: 0,
        provenMs: [2000, 2500, 4000],
        signs: new Map([
          ['sealer (lineage checkpoint)', 98],
          ['integrator (deployment checkpoint)', 2],
          ['witness (cosignature)', 2],
        ]),
        publishedSizes: [5, 6],
      },
      { intervalSeconds: 2, floorP50Ms: 500 },
    ).join('\n');
    expect(lines).toContain('| **all** | **102** | **1.020** |');
    expect(lines).toContain('Sign per write, all signers: 1.020 against the target ≤ 0.05: ✗');
    expect(lines).toContain('Sign per write, the integrator alone: 0.040 against ≤ 0.05: ✓');
    expect(lines).toContain('p50 2.50 s, p99 4.00 s; target p50 ≤ interval + 1 s = 3 s: ✓');
    expect(lines).toContain('floor + interval = 2.50 s');
    // Two integrations of 50 writes, 51 Sign each: at 50 writes/s × 2 s, 51 ÷ 100 per write.
    expect(lines).toContain('integrations: 2 (one log-key Sign each), 50.0 writes each, 51.00 Sign each');
    expect(lines).toContain('51.00 ÷ 100 = 0.510 Sign per write (✗ against ≤ 0.05)');
  });

  it('the report implies Sign per write at the nominal rate from the Sign per integration (the sealer signing nothing)', () => {
    const lines = freshnessReport(
      {
        writes: 200,
        seconds: 60,
        publishSeconds: 20,
        nominalWritesPerSecond: 50,
        unproven: 0,
        provenMs: [15_000],
        signs: new Map([
          ['integrator (deployment checkpoint)', 20],
          ['witness (cosignature)', 22],
        ]),
        publishedSizes: [5, 6],
      },
      { intervalSeconds: 2, floorP50Ms: 500 },
    ).join('\n');
    expect(lines).toContain('(the sealer signed no lineage checkpoint)');
    expect(lines).toContain('integrations: 20 (one log-key Sign each), 10.0 writes each, 2.10 Sign each');
    expect(lines).toContain('2.10 ÷ 100 = 0.021 Sign per write (✓ against ≤ 0.05)');
  });
});
