import { describe, expect, it } from 'vitest';
import { PolicyFormatError } from '../../../../shared/errors';
import { formatVerifierKey } from '../../../../shared/log/note-key';
import { formatCosignerKey } from '../../../../shared/witness/cosigner-key';
import { parsePolicy } from '../../../../shared/witness/tlog-policy';
import { testNoteVerifierKey } from '../../../helpers/log-factories';
import { testCosignerKey } from '../../../helpers/witness-factories';

const seed = (n: number) => new Uint8Array(32).fill(n);
const witnessVkey = async (n: number) => formatCosignerKey(await testCosignerKey(seed(n), `w${n}.example`));
const logVkey = async () => formatVerifierKey(await testNoteVerifierKey());

/** The C2SP example: two groups of three, 2-of-X and any-of-Y, both required. */
async function examplePolicy(): Promise<string> {
  const w = await Promise.all([1, 2, 3, 4, 5, 6].map(witnessVkey));
  return [
    `log ${await logVkey()}`,
    '',
    `witness X1 ${w[0]}`,
    `witness X2 ${w[1]} https://x2.example/`,
    `witness X3 ${w[2]}`,
    'group X-witnesses 2 X1 X2 X3',
    '  # a comment',
    `witness\tY1 ${w[3]}`,
    `witness Y2 ${w[4]}`,
    `witness Y3 ${w[5]}   `,
    'group Y-witnesses any Y1 Y2 Y3',
    'group X-and-Y all X-witnesses Y-witnesses',
    'quorum X-and-Y',
    '',
  ].join('\n');
}

function errorOf(text: string): PolicyFormatError {
  try {
    parsePolicy(text);
  } catch (error) {
    if (error instanceof PolicyFormatError) return error;
    throw error;
  }
  throw new Error('parsed');
}

describe('parsePolicy: C2SP tlog-policy', () => {
  it('reads logs, witnesses with URLs, nested groups with all, any and k, and the quorum', async () => {
    const policy = parsePolicy(await examplePolicy());
    expect(policy.logs).toHaveLength(1);
    expect(policy.witnesses.map((w) => w.name)).toEqual(['X1', 'X2', 'X3', 'Y1', 'Y2', 'Y3']);
    expect(policy.witnesses[1]?.url).toBe('https://x2.example/');
    expect(policy.quorum).toMatchObject({
      kind: 'GROUP',
      threshold: 2,
      members: [
        { name: 'X-witnesses', threshold: 2 },
        { name: 'Y-witnesses', threshold: 1 },
      ],
    });
    expect(parsePolicy('quorum none\n').quorum).toEqual({ kind: 'NONE' });
  });

  it.each([
    ['no quorum line', async () => '# only a comment\n', ''],
    ['an unknown keyword', async () => 'monitor x\nquorum none\n', 'line 1'],
    ['a control character', async () => 'quorum none\r\n', 'line 1'],
    ['a witness vkey of note type 0x01', async () => `witness a ${await logVkey()}\nquorum a\n`, 'line 1'],
    ['a log vkey of cosignature type 0x04', async () => `log ${await witnessVkey(1)}\nquorum none\n`, 'line 1'],
    [
      'a duplicate witness key',
      async () => `witness a ${await witnessVkey(1)}\nwitness b ${await witnessVkey(1)}\nquorum a\n`,
      'line 2',
    ],
    [
      'a duplicate name',
      async () => `witness a ${await witnessVkey(1)}\nwitness a ${await witnessVkey(2)}\nquorum a\n`,
      'line 2',
    ],
    ['a name used before it is defined', async () => `quorum a\nwitness a ${await witnessVkey(1)}\n`, 'line 1'],
    [
      'none as a group member',
      async () => `witness a ${await witnessVkey(1)}\ngroup g any a none\nquorum g\n`,
      'line 2',
    ],
    ['a member listed twice', async () => `witness a ${await witnessVkey(1)}\ngroup g any a a\nquorum g\n`, 'line 2'],
    ['a threshold above n', async () => `witness a ${await witnessVkey(1)}\ngroup g 2 a\nquorum g\n`, 'line 2'],
    ['a threshold of 0', async () => `witness a ${await witnessVkey(1)}\ngroup g 0 a\nquorum g\n`, 'line 2'],
    ['a group without members', async () => 'group g any\nquorum none\n', 'line 1'],
    ['two quorum lines', async () => 'quorum none\nquorum none\n', 'line 2'],
    ['a log line with extra items', async () => `log ${await logVkey()} https://a https://b\nquorum none\n`, 'line 1'],
  ])('refuses %s, naming the line', async (_, text, path) => {
    expect(errorOf(await text()).issues[0]?.path).toBe(path);
  });
});
