import { InvalidInputError, PolicyFormatError } from '../errors';
import { type NoteVerifierKey, parseVerifierKey } from '../log/note-key';
import { type CosignerKey, parseCosignerKey } from './cosigner-key';

/**
 * C2SP tlog-policy: the logs a client accepts, the witnesses it knows, and the quorum of
 * cosignatures a checkpoint needs (docs/witness.md, "Policy"). Line based; `log <vkey> [<url>]`,
 * `witness <name> <vkey> [<url>]`, `group <name> all|any|<k> <name>...`, `quorum <name>`; blank
 * and `#` comment lines ignored; names opaque and defined before use.
 */

/** A node of the quorum rule: a witness, a group of nodes with a threshold, or `none`. */
export type QuorumRule =
  | { readonly kind: 'NONE' }
  | { readonly kind: 'WITNESS'; readonly name: string }
  | {
      readonly kind: 'GROUP';
      readonly name: string;
      readonly threshold: number;
      readonly members: readonly QuorumRule[];
    };

/** A policy's witness: its name in the policy, its cosigner key, and its submission URL if given. */
export interface PolicyWitness {
  readonly name: string;
  readonly key: CosignerKey;
  readonly url?: string;
}

/** A parsed tlog policy. */
export interface TlogPolicy {
  /** The accepted logs (key name = origin), with their URLs if given. */
  readonly logs: readonly { readonly key: NoteVerifierKey; readonly url?: string }[];
  /** Every witness the policy defines, in order. */
  readonly witnesses: readonly PolicyWitness[];
  /** The quorum rule, groups resolved. */
  readonly quorum: QuorumRule;
}

/** Bounds on a policy (C2SP recommends supporting at least 32 of each). */
export const MAX_POLICY_LOGS = 32;
export const MAX_POLICY_WITNESSES = 64;
export const MAX_POLICY_GROUPS = 32;
/** Largest policy text accepted, in bytes. */
export const MAX_POLICY_BYTES = 64 * 1024;

// Allowed octets: tab, newline, 0x20–0x7E and anything with the high bit set (C2SP "Character set").
function controlCharacter(line: string): boolean {
  for (let i = 0; i < line.length; i += 1) {
    const code = line.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}
const NUMBER = /^[1-9][0-9]{0,3}$/;

function keyOf<T>(parse: (text: string) => T, text: string, at: string, what: string): T {
  try {
    return parse(text);
  } catch (error) {
    const reason = error instanceof InvalidInputError ? (error.issues[0]?.message ?? error.message) : String(error);
    throw new PolicyFormatError(at, `${what}: ${reason}`, { cause: error });
  }
}

/**
 * Reads a C2SP tlog-policy text.
 *
 * @throws {PolicyFormatError} naming the line: a forbidden control character, an unknown
 *   keyword, a wrong number of items, a log vkey that is not a signed-note Ed25519 key (type
 *   0x01) or a witness vkey that is not a `cosignature/v1` key (type 0x04), a duplicate key
 *   (same public key) or name, a group member or quorum name not defined on an earlier line (or
 *   `none` as a member), a member listed twice, a threshold outside 1..n, no or several quorum
 *   lines, or more than the MAX_POLICY_* bounds
 */
export function parsePolicy(text: string): TlogPolicy {
  if (typeof text !== 'string') throw new PolicyFormatError('', 'expected a text');
  if (Buffer.byteLength(text, 'utf8') > MAX_POLICY_BYTES) {
    throw new PolicyFormatError('', `the policy exceeds ${MAX_POLICY_BYTES} bytes`);
  }
  const logs: { key: NoteVerifierKey; url?: string }[] = [];
  const witnesses: PolicyWitness[] = [];
  const names = new Map<string, QuorumRule>([['none', { kind: 'NONE' }]]);
  const publicKeys = { log: new Set<string>(), witness: new Set<string>() };
  let groups = 0;
  let quorum: QuorumRule | undefined;
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((line, i) => {
    const at = `line ${i + 1}`;
    if (controlCharacter(line)) throw new PolicyFormatError(at, 'holds a control character other than tab');
    const items = line.split(/[ \t]+/).filter((item) => item.length > 0);
    const [keyword, ...args] = items;
    if (keyword === undefined || keyword.startsWith('#')) return;
    const define = (name: string, rule: QuorumRule) => {
      if (names.has(name)) throw new PolicyFormatError(at, `name ${JSON.stringify(name)} is already defined`);
      names.set(name, rule);
    };
    switch (keyword) {
      case 'log': {
        if (args.length < 1 || args.length > 2) throw new PolicyFormatError(at, 'expected "log <vkey> [<url>]"');
        const key = keyOf(parseVerifierKey, args[0] as string, at, 'log vkey');
        const raw = Buffer.from(key.publicKey).toString('hex');
        if (publicKeys.log.has(raw)) throw new PolicyFormatError(at, 'duplicate log key');
        publicKeys.log.add(raw);
        if (logs.length >= MAX_POLICY_LOGS) throw new PolicyFormatError(at, `more than ${MAX_POLICY_LOGS} logs`);
        logs.push(args[1] === undefined ? { key } : { key, url: args[1] });
        return;
      }
      case 'witness': {
        if (args.length < 2 || args.length > 3)
          throw new PolicyFormatError(at, 'expected "witness <name> <vkey> [<url>]"');
        const [name, vkey, url] = args as [string, string, string | undefined];
        const key = keyOf(parseCosignerKey, vkey, at, 'witness vkey');
        const raw = Buffer.from(key.publicKey).toString('hex');
        if (publicKeys.witness.has(raw)) throw new PolicyFormatError(at, 'duplicate witness key');
        publicKeys.witness.add(raw);
        if (witnesses.length >= MAX_POLICY_WITNESSES) {
          throw new PolicyFormatError(at, `more than ${MAX_POLICY_WITNESSES} witnesses`);
        }
        define(name, { kind: 'WITNESS', name });
        witnesses.push(url === undefined ? { name, key } : { name, key, url });
        return;
      }
      case 'group': {
        if (args.length < 3) throw new PolicyFormatError(at, 'expected "group <name> all|any|<k> <name>..."');
        const [name, k, ...memberNames] = args as [string, string, ...string[]];
        const seen = new Set<string>();
        const members = memberNames.map((member) => {
          if (member === 'none') throw new PolicyFormatError(at, '"none" cannot be a group member');
          const rule = names.get(member);
          if (rule === undefined)
            throw new PolicyFormatError(at, `member ${JSON.stringify(member)} is not defined above`);
          if (seen.has(member)) throw new PolicyFormatError(at, `member ${JSON.stringify(member)} is listed twice`);
          seen.add(member);
          return rule;
        });
        const n = members.length;
        const threshold = k === 'all' ? n : k === 'any' ? 1 : NUMBER.test(k) ? Number(k) : Number.NaN;
        if (!(threshold >= 1 && threshold <= n)) {
          throw new PolicyFormatError(at, `threshold ${JSON.stringify(k)}: expected all, any or a number in 1..${n}`);
        }
        groups += 1;
        if (groups > MAX_POLICY_GROUPS) throw new PolicyFormatError(at, `more than ${MAX_POLICY_GROUPS} groups`);
        define(name, { kind: 'GROUP', name, threshold, members });
        return;
      }
      case 'quorum': {
        if (args.length !== 1) throw new PolicyFormatError(at, 'expected "quorum <name>"');
        if (quorum !== undefined) throw new PolicyFormatError(at, 'a second quorum line');
        const rule = names.get(args[0] as string);
        if (rule === undefined)
          throw new PolicyFormatError(at, `quorum ${JSON.stringify(args[0])} is not defined above`);
        quorum = rule;
        return;
      }
      default:
        throw new PolicyFormatError(at, `unknown keyword ${JSON.stringify(keyword)}`);
    }
  });
  if (quorum === undefined) throw new PolicyFormatError('', 'no quorum line');
  return { logs, witnesses, quorum };
}
