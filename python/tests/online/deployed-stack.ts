/**
 * The Python package's integration tests' stack (python/tests/online/): starts the emulator (or
 * borrows AWS_ENDPOINT_URL) and deploys the real stack exactly as the TypeScript integration
 * tests do (scripts/emulator/), writes its stack pin (the `reseal pin` format: outputs and the three
 * verifier keys, read with KMS `GetPublicKey`) to the file named by the first argument, prints
 * one JSON line `{"endpoint": …, "pin": …}` on stdout, and stops the emulator when stdin closes.
 * Progress goes to stderr.
 */
import { writeFileSync } from 'node:fs';
import { KMSClient } from '@aws-sdk/client-kms';
import { KMSNoteVerifierKey } from '../../../adapters/kms-note-verifier-key';
import { clientOutputsFrom } from '../../../client/stack-outputs';
import { stackPinOf } from '../../../client/stack-pin';
import { clientConfig, deployStack, STACK_NAME } from '../../../scripts/emulator/deploy';
import { startEmulator } from '../../../scripts/emulator/emulator';
import { guardKeyName, sealerKeyName } from '../../../shared/log/log-names';

const pinPath = process.argv[2];
if (!pinPath) throw new Error('usage: deployed-stack.ts <pin file>');
const log = (line: string) => process.stderr.write(`${line}\n`);
const emulator = await startEmulator({ log: (line) => log(`[emulator] ${line}`) });
try {
  const stack = await deployStack(emulator.endpoint, {
    embedded: emulator.embedded,
    log: (line) => log(`[deploy] ${line}`),
  });
  const outputs = clientOutputsFrom({ ...stack }, STACK_NAME);
  const kms = new KMSClient(clientConfig(emulator.endpoint));
  const logKey = await new KMSNoteVerifierKey(kms, outputs.logKeyArn, outputs.logName).get();
  const guardKey = await new KMSNoteVerifierKey(kms, outputs.guardKeyArn, guardKeyName(outputs.logName)).get();
  const sealerKey = await new KMSNoteVerifierKey(kms, outputs.sealerKeyArn, sealerKeyName(outputs.logName)).get();
  writeFileSync(
    pinPath,
    `${JSON.stringify(stackPinOf({ stackName: STACK_NAME, outputs, logKey, guardKey, sealerKey }), null, 2)}\n`,
  );
  process.stdout.write(`${JSON.stringify({ endpoint: emulator.endpoint, pin: pinPath })}\n`);
} catch (error) {
  await emulator.stop();
  throw error;
}
process.stdin.resume();
process.stdin.on('end', () => {
  void emulator.stop().then(() => process.exit(0));
});
