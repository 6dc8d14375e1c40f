import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { clientOutputsFrom, type ResealStackOutputs } from '../client/stack-outputs';
import { parseStrictJson } from '../shared/canonical/strict-json';
import { parseInput } from '../shared/schemas/parse';

/**
 * Reads a stack outputs file: a `cdk deploy --outputs-file` document (`{ <stack>: { TableName, … } }`)
 * or one stack's flat outputs.
 *
 * @throws {InvalidInputError} when the file is not JSON; {@link StackOutputsError} when an output is missing
 */
export async function readStackOutputsFile(path: string, stackName: string): Promise<ResealStackOutputs> {
  const what = `stack outputs file ${path}`;
  const document = parseInput(
    z.record(z.string(), z.unknown()),
    parseStrictJson(await readFile(path, 'utf8'), what),
    what,
  );
  const nested = document[stackName];
  const outputs = nested !== null && typeof nested === 'object' && !Array.isArray(nested) ? nested : document;
  const strings = Object.fromEntries(
    Object.entries(outputs as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
  return clientOutputsFrom(strings, stackName);
}
