import { access } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import {
  DEFAULT_STACK_PIN_PATH,
  type PinnedStack,
  pinnedStackOf,
  STACK_PIN_ENV,
  StackPinSchema,
} from '../client/stack-pin';
import { BadInputError } from './errors';
import type { CliIo } from './io';
import { readSchemaFile } from './read-file';

/** The stack pin file of this run: `RESEAL_STACK_FILE` when set, else `.reseal/stack.json` (docs/cli.md, "Pinning the stack"). */
export function stackPinPath(io: CliIo): { readonly path: string; readonly explicit: boolean } {
  const named = io.env[STACK_PIN_ENV];
  const path = named || DEFAULT_STACK_PIN_PATH;
  return { path: isAbsolute(path) ? path : resolve(io.cwd, path), explicit: Boolean(named) };
}

/**
 * The pinned stack of this run, or `null` when there is no pin file (at the default path; a file
 * `RESEAL_STACK_FILE` names must exist).
 *
 * @throws {BadInputError} (exit 2) when the file is missing although named, is not a valid pin
 *   (naming the field), or pins another stack than `stackName`
 */
export async function readStackPin(io: CliIo, stackName: string): Promise<(PinnedStack & { path: string }) | null> {
  const { path, explicit } = stackPinPath(io);
  if (
    !explicit &&
    !(await access(path).then(
      () => true,
      () => false,
    ))
  ) {
    return null;
  }
  const pin = pinnedStackOf(await readSchemaFile(io, path, StackPinSchema, 'stack pin'));
  if (pin.stackName !== stackName) {
    throw new BadInputError(
      `${path}: pins stack ${pin.stackName}, not ${stackName}; run \`reseal pin --stack ${stackName}\` or set ${STACK_PIN_ENV} to its pin`,
    );
  }
  return { ...pin, path };
}
