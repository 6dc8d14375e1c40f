/**
 * Building blocks for the handler fuzz tests (test/unit/fuzz/; docs/guarantees.md, "Fuzzing"): a small JSON syntax tree
 * that can hold what `JSON.stringify` cannot write (repeated member names, number literals such
 * as `-0` or `9007199254740993`, names spelled with escapes), mutations of such a tree at a
 * path picked by a generated index, text-level mutations, hostile strings and numbers, and a
 * ledger that tells apart inputs that differ from inputs that share a digest.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import { canonicalJson } from '../../shared/canonical/canonical-json';
import { CanonicalizationError } from '../../shared/errors';
import { Authority } from '../../shared/schemas/authority';
import { payloadHash } from '../../shared/seal/payload-hash';
import { requestDigest } from '../../shared/write/request-digest';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { fuzzRuns } from './fuzz-runs';
import {
  absentKeyManifest,
  FACTORY_NOW_MS,
  freshVariable,
  GENERATION_EPOCH,
  immutableConstant,
  unverifiedInheritedVariable,
  validBoundary,
  validManifest,
  validWriteRequest,
  verifiedInheritedVariable,
} from './guard-factories';
import { signWriteSync } from './writer-factories';

/** Generated inputs per handler ({@link fuzzRuns}): the fuzz tests are bounded by this count, not by time. */
export const FUZZ_RUNS = fuzzRuns();
/**
 * Time allowed to one fuzz test, ms: only a guard against a hang, never what bounds the fuzzing.
 * The sealer's, the slowest, took 85 s for 1,000 inputs on a shared 2-core machine at a load
 * average of 8 (and passed its old 60 s limit only when idle); 300 ms per input, ten minutes at
 * least, leaves room for twice that load.
 */
export const FUZZ_TIMEOUT_MS = Math.max(600_000, FUZZ_RUNS * 300);

// --- JSON syntax tree -------------------------------------------------------------------------

/**
 * A JSON text as a tree. `raw` is a token written as is (a number literal, or a broken token);
 * an object member's name is kept as its literal text (`"a"`, or `"\u0061"`), so a tree can
 * repeat a name or spell it with escapes.
 */
export type JNode =
  | { readonly kind: 'object'; readonly members: readonly (readonly [string, JNode])[] }
  | { readonly kind: 'array'; readonly items: readonly JNode[] }
  | { readonly kind: 'raw'; readonly text: string }
  | { readonly kind: 'value'; readonly value: null | boolean | number | string };

/** The tree of a JSON value (`undefined` members dropped, as `JSON.stringify` does). */
export function toAst(value: unknown): JNode {
  if (Array.isArray(value)) return { kind: 'array', items: value.map(toAst) };
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [JSON.stringify(k), toAst(v)] as const);
    return { kind: 'object', members };
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return { kind: 'raw', text: String(value) };
  return { kind: 'value', value: value as null | boolean | number | string };
}

/** How a tree is written: compact, or with a space after every `:` and `,` and an indent. */
export type Layout = 'compact' | 'spaced' | 'pretty';

/** JSON text of a tree (lone surrogates in strings written as `\uXXXX`, as `JSON.stringify` does). */
export function render(node: JNode, layout: Layout = 'compact', depth = 0): string {
  const nl = layout === 'pretty' ? `\n${'  '.repeat(depth + 1)}` : '';
  const end = layout === 'pretty' ? `\n${'  '.repeat(depth)}` : '';
  const sep = layout === 'compact' ? ',' : ', ';
  const colon = layout === 'compact' ? ':' : ': ';
  switch (node.kind) {
    case 'raw':
      return node.text;
    case 'value':
      return JSON.stringify(node.value);
    case 'array':
      if (node.items.length === 0) return '[]';
      return `[${node.items.map((item) => nl + render(item, layout, depth + 1)).join(sep)}${end}]`;
    case 'object':
      if (node.members.length === 0) return '{}';
      return `{${node.members.map(([k, v]) => `${nl}${k}${colon}${render(v, layout, depth + 1)}`).join(sep)}${end}}`;
  }
}

/** Every node's path (child indices from the root), root first, depth first. */
export function pathsOf(node: JNode, prefix: readonly number[] = []): number[][] {
  const out: number[][] = [[...prefix]];
  const children = node.kind === 'object' ? node.members.map(([, v]) => v) : node.kind === 'array' ? node.items : [];
  children.forEach((child, i) => {
    out.push(...pathsOf(child, [...prefix, i]));
  });
  return out;
}

/** The node at `path`. */
export function nodeAt(node: JNode, path: readonly number[]): JNode {
  let at = node;
  for (const i of path) {
    if (at.kind === 'object') at = (at.members[i] as readonly [string, JNode])[1];
    else if (at.kind === 'array') at = at.items[i] as JNode;
    else throw new Error('path leaves the tree');
  }
  return at;
}

/** `node` with the node at `path` replaced by `edit(it)`; `edit` returning `null` removes it from its parent. */
export function editAt(node: JNode, path: readonly number[], edit: (target: JNode) => JNode | null): JNode | null {
  if (path.length === 0) return edit(node);
  const [head, ...rest] = path as [number, ...number[]];
  if (node.kind === 'object') {
    const members: (readonly [string, JNode])[] = [];
    node.members.forEach(([k, v], i) => {
      if (i !== head) members.push([k, v]);
      else {
        const edited = editAt(v, rest, edit);
        if (edited) members.push([k, edited]);
      }
    });
    return { kind: 'object', members };
  }
  if (node.kind === 'array') {
    const items: JNode[] = [];
    node.items.forEach((v, i) => {
      if (i !== head) items.push(v);
      else {
        const edited = editAt(v, rest, edit);
        if (edited) items.push(edited);
      }
    });
    return { kind: 'array', items };
  }
  return node;
}

/** `node` (an object) with member `name` set to `value` (replacing every member of that name, else appended). */
export function withMember(node: JNode, name: string, value: JNode): JNode {
  if (node.kind !== 'object') return node;
  const has = node.members.some(([k]) => JSON.parse(k) === name);
  return {
    kind: 'object',
    members: has
      ? node.members.map(([k, v]) => (JSON.parse(k) === name ? ([k, value] as const) : ([k, v] as const)))
      : [...node.members, [JSON.stringify(name), value]],
  };
}

// --- Hostile values ---------------------------------------------------------------------------

/**
 * Strings the pipeline must treat exactly: NFC/NFD pairs, lone surrogates, names JavaScript
 * objects inherit, characters JSON escapes or not, and lengths at and past the schemas' bounds.
 */
export const HOSTILE_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u00e9', // é, NFC
  'e\u0301', // é, NFD
  '\u00c5', // Å, NFC
  'A\u030a', // Å, NFD
  '\u212b', // Ångström sign: NFC gives U+00C5
  '\ufb01', // ﬁ ligature (NFKC only)
  '\ud800',
  '\udfff',
  'a\ud83d',
  '\ude00b',
  '\ud83d\ude00', // 😀
  '\u0000',
  '\u001f',
  '\u007f',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\u202e',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '\\',
  '"',
  '/',
  '~1',
  'a.b',
  '0',
  'null',
  'x'.repeat(200),
  'x'.repeat(201),
  'x'.repeat(257),
  'x'.repeat(513),
];

/** Number literals RFC 8785 and JavaScript treat specially, and a few that are not JSON at all. */
export const NUMBER_LITERALS: readonly string[] = [
  '-0',
  '-0.0',
  '0.0',
  '-0e0',
  '0e-0',
  '1e21',
  '1E21',
  '1e+21',
  '1000000000000000000000',
  '999999999999999999999',
  '1e-7',
  '0.0000001',
  '5e-324',
  '4.9406564584124654e-324',
  '2e-324',
  '1e-400',
  '1e400',
  '-1e400',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '-9007199254740991',
  '-9007199254740993',
  '1.7976931348623157e308',
  '0.1',
  '1.5',
  '7.0',
  '70e-1',
  '-1',
  // not JSON
  '01',
  '+1',
  '.5',
  '1.',
  'NaN',
  'Infinity',
  '-',
  '0x1F',
];

/** A hostile string: one of {@link HOSTILE_STRINGS} mostly, else any short string (lone surrogates included). */
export const hostileStringArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-composite', maxLength: 6 }) },
);

/** A number literal, as a raw token. */
export const numberLiteralArb: fc.Arbitrary<JNode> = fc
  .constantFrom(...NUMBER_LITERALS)
  .map((text) => ({ kind: 'raw', text }) as const);

/** A small JSON tree with hostile leaves (strings, literals, `__proto__` members). */
export const hostileNodeArb: fc.Arbitrary<JNode> = fc.letrec<{ node: JNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant<JNode>({ kind: 'value', value: null }),
    fc.boolean().map((value): JNode => ({ kind: 'value', value })),
    fc.integer({ min: -1000, max: 1_000_000 }).map((value): JNode => ({ kind: 'value', value })),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((value): JNode => ({ kind: 'value', value })),
    numberLiteralArb,
    hostileStringArb.map((value): JNode => ({ kind: 'value', value })),
    fc.array(tie('node'), { maxLength: 3 }).map((items): JNode => ({ kind: 'array', items })),
    fc
      .array(fc.tuple(hostileStringArb, tie('node')), { maxLength: 3 })
      .map((members): JNode => ({ kind: 'object', members: members.map(([k, v]) => [JSON.stringify(k), v]) })),
  ),
})).node;

/**
 * A payload tree RFC 8785 carries (mostly): well-formed keys and strings, NFC and NFD spellings
 * side by side, inherited names as keys, and number literals including ones it refuses.
 */
export const payloadNodeArb: fc.Arbitrary<JNode> = fc.letrec<{ node: JNode }>((tie) => {
  const key = fc.oneof(
    fc.constantFrom('conclusion', 'constructor', 'toString', '\u00e9', 'e\u0301', '\u212b', '\u00c5', '', 'a'),
    fc.string({ unit: 'grapheme', maxLength: 6 }),
  );
  return {
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant<JNode>({ kind: 'value', value: null }),
      fc.boolean().map((value): JNode => ({ kind: 'value', value })),
      fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }).map(
        (value): JNode => ({
          kind: 'value',
          value,
        }),
      ),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((value): JNode => ({ kind: 'value', value })),
      fc
        .constantFrom(
          '-0',
          '5e-324',
          '9007199254740991',
          '-9007199254740991',
          '1e-7',
          '0.1',
          '1e21',
          '9007199254740993',
        )
        .map((text): JNode => ({ kind: 'raw', text })),
      fc.string({ unit: 'grapheme', maxLength: 12 }).map((value): JNode => ({ kind: 'value', value })),
      fc.array(tie('node'), { maxLength: 4 }).map((items): JNode => ({ kind: 'array', items })),
      fc
        .uniqueArray(fc.tuple(key, tie('node')), { maxLength: 4, selector: ([k]) => k })
        .map((members): JNode => ({ kind: 'object', members: members.map(([k, v]) => [JSON.stringify(k), v]) })),
    ),
  };
}).node;

/** An identifier (`[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,199}`), short. */
export const identifierArb: fc.Arbitrary<string> = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,24}$/);

// --- Mutations --------------------------------------------------------------------------------

/** Ways to change a string value. */
const STRING_EDITS = [
  'nfd',
  'nfc',
  'loneHigh',
  'loneLow',
  'combining',
  'empty',
  'upper',
  'bom',
  'nul',
  'emoji',
  'long201',
  'long257',
  'long16385',
  'proto',
  'constructor',
] as const;
type StringEdit = (typeof STRING_EDITS)[number];

function editString(text: string, edit: StringEdit): string {
  switch (edit) {
    case 'nfd':
      return `${text}\u00e9`.normalize('NFD');
    case 'nfc':
      return `${text}e\u0301`.normalize('NFC');
    case 'loneHigh':
      return `${text}\ud800`;
    case 'loneLow':
      return `\udc00${text}`;
    case 'combining':
      return `${text}\u0301`;
    case 'empty':
      return '';
    case 'upper':
      return text.toUpperCase();
    case 'bom':
      return `\ufeff${text}`;
    case 'nul':
      return `${text}\u0000`;
    case 'emoji':
      return `${text}\ud83d\ude00`;
    case 'long201':
      return `a${'b'.repeat(200)}`;
    case 'long257':
      return 'n'.repeat(257);
    case 'long16385':
      return 'v'.repeat(16_385);
    case 'proto':
      return '__proto__';
    case 'constructor':
      return 'constructor';
  }
}

/** One edit of a tree, at the node picked by `at` (modulo the number of nodes). */
export type Mutation =
  | { readonly op: 'replace'; readonly at: number; readonly value: JNode }
  | { readonly op: 'delete'; readonly at: number }
  | { readonly op: 'addMember'; readonly at: number; readonly name: string; readonly value: JNode }
  | { readonly op: 'repeatMember'; readonly at: number; readonly member: number; readonly escaped: boolean }
  | { readonly op: 'renameMember'; readonly at: number; readonly member: number; readonly edit: StringEdit }
  | { readonly op: 'wrap'; readonly at: number; readonly inArray: boolean }
  | { readonly op: 'string'; readonly at: number; readonly edit: StringEdit }
  | { readonly op: 'number'; readonly at: number; readonly literal: string };

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value: hostileNodeArb }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('addMember' as const), at: fc.nat(), name: hostileStringArb, value: hostileNodeArb }),
  fc.record({ op: fc.constant('repeatMember' as const), at: fc.nat(), member: fc.nat(), escaped: fc.boolean() }),
  fc.record({
    op: fc.constant('renameMember' as const),
    at: fc.nat(),
    member: fc.nat(),
    edit: fc.constantFrom(...STRING_EDITS),
  }),
  fc.record({ op: fc.constant('wrap' as const), at: fc.nat(), inArray: fc.boolean() }),
  fc.record({ op: fc.constant('string' as const), at: fc.nat(), edit: fc.constantFrom(...STRING_EDITS) }),
  fc.record({ op: fc.constant('number' as const), at: fc.nat(), literal: fc.constantFrom(...NUMBER_LITERALS) }),
);

/** A name written with every character `\u`-escaped: the same name to a JSON parser, other text. */
function escapedName(literal: string): string {
  const name = JSON.parse(literal) as string;
  return `"${[...Array(name.length).keys()].map((i) => `\\u${name.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')}"`;
}

/**
 * Applies `mutation` to `root`. Ops that need a certain kind of node (members need an object,
 * string edits a string) look for the nearest such node from the picked one on, and fall back to
 * replacing the picked node; the result is always a tree.
 */
export function mutate(root: JNode, mutation: Mutation): JNode {
  const paths = pathsOf(root);
  const pick = (predicate: (n: JNode) => boolean) => {
    for (let k = 0; k < paths.length; k++) {
      const path = paths[(mutation.at + k) % paths.length] as number[];
      if (predicate(nodeAt(root, path))) return path;
    }
    return null;
  };
  const path = paths[mutation.at % paths.length] as number[];
  const apply = (at: number[] | null, edit: (n: JNode) => JNode | null) =>
    (at ? editAt(root, at, edit) : null) ?? { kind: 'raw', text: '' };
  switch (mutation.op) {
    case 'replace':
      return apply(path, () => mutation.value);
    case 'delete':
      return path.length === 0 ? { kind: 'raw', text: '' } : apply(path, () => null);
    case 'wrap':
      return apply(path, (n) =>
        mutation.inArray ? { kind: 'array', items: [n] } : { kind: 'object', members: [['"value"', n]] },
      );
    case 'addMember':
      return apply(
        pick((n) => n.kind === 'object'),
        (n) =>
          n.kind === 'object'
            ? { kind: 'object', members: [...n.members, [JSON.stringify(mutation.name), mutation.value]] }
            : n,
      );
    case 'repeatMember':
      return apply(
        pick((n) => n.kind === 'object' && n.members.length > 0),
        (n) => {
          if (n.kind !== 'object' || n.members.length === 0) return n;
          const [name, value] = n.members[mutation.member % n.members.length] as readonly [string, JNode];
          const again = [mutation.escaped ? escapedName(name) : name, value] as const;
          return { kind: 'object', members: [again, ...n.members] };
        },
      );
    case 'renameMember':
      return apply(
        pick((n) => n.kind === 'object' && n.members.length > 0),
        (n) => {
          if (n.kind !== 'object' || n.members.length === 0) return n;
          const index = mutation.member % n.members.length;
          return {
            kind: 'object',
            members: n.members.map(([k, v], i) =>
              i === index ? ([JSON.stringify(editString(JSON.parse(k) as string, mutation.edit)), v] as const) : [k, v],
            ),
          };
        },
      );
    case 'string':
      return apply(
        pick((n) => n.kind === 'value' && typeof n.value === 'string'),
        (n) =>
          n.kind === 'value' && typeof n.value === 'string'
            ? { kind: 'value', value: editString(n.value, mutation.edit) }
            : n,
      );
    case 'number':
      return apply(
        pick((n) => (n.kind === 'value' && typeof n.value === 'number') || n.kind === 'raw'),
        () => ({ kind: 'raw', text: mutation.literal }),
      );
  }
}

/** One edit of a JSON text, at the offset picked by `at` (modulo the text's length + 1). */
export type TextMutation =
  | { readonly op: 'truncate'; readonly at: number }
  | { readonly op: 'insert'; readonly at: number; readonly text: string }
  | { readonly op: 'remove'; readonly at: number; readonly length: number }
  | { readonly op: 'bom' }
  | { readonly op: 'trailing'; readonly text: string };

export const textMutationArb: fc.Arbitrary<TextMutation> = fc.oneof(
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.oneof(
      fc.constantFrom('"', ',', '{', '}', '[', ']', ':', '\\', '\u0000', '\ud800', ' ', 'x'),
      hostileStringArb,
    ),
  }),
  fc.record({ op: fc.constant('remove' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 4 }) }),
  fc.constant({ op: 'bom' as const }),
  fc.record({ op: fc.constant('trailing' as const), text: fc.constantFrom(' ', '\n', ',', '}', 'x', '\u00a0', '{}') }),
);

export function mutateText(text: string, mutation: TextMutation): string {
  const at = 'at' in mutation ? mutation.at % (text.length + 1) : 0;
  switch (mutation.op) {
    case 'truncate':
      return text.slice(0, at);
    case 'insert':
      return text.slice(0, at) + mutation.text + text.slice(at);
    case 'remove':
      return text.slice(0, at) + text.slice(at + mutation.length);
    case 'bom':
      return `\ufeff${text}`;
    case 'trailing':
      return text + mutation.text;
  }
}

// --- Write requests -------------------------------------------------------------------------

/**
 * `validWriteRequest()` in generation epoch `epoch` (its fresh variable from `epoch`, the
 * predecessor's epoch `epoch − 1`): valid, and accepted by the guard, for any `epoch ≥ 1`.
 */
export function requestInEpoch(
  epoch: number,
  overrides: Partial<ResidualWriteRequest> = {},
  nowMs = FACTORY_NOW_MS,
): ResidualWriteRequest {
  const base = validWriteRequest({}, { nowMs });
  return {
    ...base,
    generationEpoch: epoch,
    variablesUsed: [
      freshVariable('attemptId', 'attempt-7f3a', { sourceEpoch: epoch }),
      { ...verifiedInheritedVariable('targetResourceId', 'i-0abc123', {}, { nowMs }), sourceEpoch: epoch - 1 },
      immutableConstant('apiSchemaVersion', '2024-01-01'),
    ],
    boundary: validBoundary({ predecessorEpoch: epoch - 1 }, { nowMs }),
    ...overrides,
  };
}

/** Options of {@link writeRequestArb}. */
export interface WriteRequestArbOptions {
  /** Lineage ids to pick from (default: any identifier). */
  readonly lineageIds?: readonly string[];
  /** Residual ids to pick from (default: any identifier). */
  readonly residualIds?: readonly string[];
  /** Generation epochs to pick from (default: {@link GENERATION_EPOCH}). */
  readonly epochs?: readonly number[];
  /** "Now" the receipts and boundary are fresh at, ms (default: the factories' now). */
  readonly nowMs?: number;
}

/**
 * A write request as a tree: valid variations (ids, authority, payload, manifest format,
 * `supersedes`, a stale variable now and then) whose payload may hold number literals, so some
 * are refused (`1e21`) and some carry `-0`.
 */
export function writeRequestArb(options: WriteRequestArbOptions = {}): fc.Arbitrary<JNode> {
  const pool = (values: readonly string[] | undefined) => (values ? fc.constantFrom(...values) : identifierArb);
  return fc
    .record({
      lineageId: pool(options.lineageIds),
      residualId: pool(options.residualIds),
      epoch: fc.constantFrom(...(options.epochs ?? [GENERATION_EPOCH])),
      authority: fc.constantFrom(...Object.values(Authority)),
      payload: payloadNodeArb,
      manifest: fc.constantFrom('v1', 'v2'),
      unverified: fc.nat({ max: 9 }).map((n) => n === 0),
      supersedes: fc.oneof(
        { weight: 7, arbitrary: fc.constant(null) },
        {
          weight: 1,
          arbitrary: fc.record({ seq: fc.nat({ max: 3 }), recordHash: fc.stringMatching(/^[0-9a-f]{64}$/) }),
        },
      ),
    })
    .map((r) => {
      const request = requestInEpoch(
        r.epoch,
        {
          lineageId: r.lineageId,
          residualId: r.residualId,
          authority: r.authority,
          manifest: r.manifest === 'v1' ? validManifest() : absentKeyManifest(),
          ...(r.supersedes ? { supersedes: r.supersedes } : {}),
        },
        options.nowMs,
      );
      if (r.unverified) {
        request.variablesUsed = [
          ...request.variablesUsed,
          unverifiedInheritedVariable('staleToken', 'tok-1', { sourceEpoch: r.epoch - 1 }),
        ];
      }
      // Signed last, over the payload the tree renders, as a writer signs what it sends; a payload
      // that cannot be canonicalized cannot be signed and keeps the earlier block (refused anyway).
      let signed: ResidualWriteRequest = request;
      try {
        const payload = JSON.parse(render(r.payload)) as ResidualWriteRequest['payload'];
        signed = {
          ...signWriteSync({ ...request, payload }, undefined, options.nowMs ?? FACTORY_NOW_MS),
          payload: request.payload,
        };
      } catch (error) {
        if (!(error instanceof CanonicalizationError) && !(error instanceof SyntaxError)) throw error;
      }
      return withMember(toAst(signed), 'payload', r.payload);
    });
}

// --- Inputs that differ -----------------------------------------------------------------------

/**
 * A text that is the same for two JSON values exactly when they are the same value, `-0` and
 * `0` taken as one (RFC 8785 §3.2.2.3 writes both `0`): strings length-prefixed (lone surrogates
 * kept), numbers in ECMAScript's shortest round-trip form, members sorted by code unit.
 */
export function valueIdentity(value: unknown): string {
  if (value === null) return 'n;';
  switch (typeof value) {
    case 'boolean':
      return value ? 't;' : 'f;';
    case 'number':
      return `d${Object.is(value, -0) ? 0 : String(value)};`;
    case 'string':
      return `s${value.length}:${value}`;
    case 'object': {
      if (Array.isArray(value)) return `a${value.length}[${value.map(valueIdentity).join('')}]`;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      return `o${keys.length}{${keys.map((k) => `s${k.length}:${k}${valueIdentity(record[k])}`).join('')}}`;
    }
    default:
      return `?${typeof value};`;
  }
}

/**
 * Digests seen so far, each with the identity of the input it was computed from. Recording the
 * same digest for an input of another identity is a collision: two different inputs the
 * pipeline could not tell apart.
 */
export class DigestLedger {
  readonly #seen = new Map<string, { identity: string; sample: unknown }>();
  /** Number of distinct digests recorded. */
  get size(): number {
    return this.#seen.size;
  }
  /** @returns `null`, or the earlier input that shares `digest` with `input` */
  record(digest: string, input: unknown): { earlier: unknown } | null {
    // UTF-16 bytes, so two identities that differ only in lone surrogates stay apart.
    const identity = createHash('sha256')
      .update(Buffer.from(valueIdentity(input), 'utf16le'))
      .digest('hex');
    const seen = this.#seen.get(digest);
    if (!seen) {
      this.#seen.set(digest, { identity, sample: input });
      return null;
    }
    return seen.identity === identity ? null : { earlier: seen.sample };
  }
}

/**
 * The two digests a write is known by (its `requestDigest` and its payload's `payloadHash`), each
 * in a {@link DigestLedger}: {@link WriteDigests.record} asserts that neither collides with an
 * earlier, different input (docs/guarantees.md "Fuzzing", "no two different inputs with one hash"). Values the
 * core cannot canonicalize are skipped: they never get a digest.
 */
export class WriteDigests {
  readonly requests = new DigestLedger();
  readonly payloads = new DigestLedger();

  /**
   * @param value - a parsed body or request, any JSON value
   * @param roundTrip - also assert that the canonical text reads back as the same value (`-0` as `0`)
   */
  record(value: unknown, roundTrip = false): void {
    let canonical: string;
    try {
      canonical = canonicalJson(value);
    } catch (error) {
      if (error instanceof CanonicalizationError) return;
      throw error;
    }
    if (roundTrip) expect(valueIdentity(JSON.parse(canonical))).toBe(valueIdentity(value));
    expect(this.requests.record(requestDigest(value as ResidualWriteRequest), value)).toBeNull();
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, 'payload')) return;
    const payload = (value as { payload: unknown }).payload;
    try {
      canonicalJson(payload);
    } catch (error) {
      if (error instanceof CanonicalizationError) return;
      throw error;
    }
    expect(this.payloads.record(payloadHash(payload), payload)).toBeNull();
  }
}

// --- Repeated names -------------------------------------------------------------------------

/**
 * Whether a JSON text that `JSON.parse` accepts repeats a member name in some object (names
 * compared after unescaping), by a scan of its own: no code shared with shared/canonical.
 */
export function repeatsName(text: string): boolean {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  let repeated = false;
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const names = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const name = str();
        if (names.has(name)) repeated = true;
        names.add(name);
        ws();
        i++; // ':'
        value();
        ws();
        if (text[i++] === '}') return;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i++] === ']') return;
      }
    }
    if (c === '"') {
      str();
      return;
    }
    while (i < text.length && !',]} \t\n\r'.includes(text[i] as string)) i++;
  };
  value();
  return repeated;
}

/** `JSON.parse(text)`, or `undefined` for a text it refuses (then `ok` is false). */
export function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
