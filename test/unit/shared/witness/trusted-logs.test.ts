import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import { formatVerifierKey } from '../../../../shared/log/note-key';
import { parseTrustedLogs } from '../../../../shared/witness/trusted-logs';
import { testNoteVerifierKey } from '../../../helpers/log-factories';

describe('parseTrustedLogs: the witness configuration of log keys', () => {
  it('maps each key name (the origin) to its keys; several keys may share an origin', async () => {
    const a = formatVerifierKey(await testNoteVerifierKey());
    const b = formatVerifierKey(await testNoteVerifierKey(undefined, new Uint8Array(32).fill(3)));
    const c = formatVerifierKey(await testNoteVerifierKey('reseal/other'));
    const logs = parseTrustedLogs(` ${a}\n${b}\t${c}\n`);
    expect([...logs.keys()]).toEqual(['reseal/test-stack', 'reseal/other']);
    expect(logs.get('reseal/test-stack')).toHaveLength(2);
  });

  it('refuses an empty list, a bad vkey (naming its position) and a repeated key', async () => {
    const a = formatVerifierKey(await testNoteVerifierKey());
    expect(() => parseTrustedLogs(' \n')).toThrow(InvalidInputError);
    expect(() => parseTrustedLogs(`${a} nonsense`)).toThrow(/at 1/);
    expect(() => parseTrustedLogs(`${a} ${a}`)).toThrow(/repeated/);
  });
});
