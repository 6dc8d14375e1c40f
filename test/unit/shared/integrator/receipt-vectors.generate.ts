/**
 * Writes test/vectors/receipt-v2.json: run once with
 * `npx tsx test/unit/shared/integrator/receipt-vectors.generate.ts > /tmp/r.json && mv /tmp/r.json test/vectors/receipt-v2.json`,
 * then review the diff by hand. The receipt is built by the real code (the sealer and the
 * integrator in memory with the test keys, `ResealClient.chainReceipt`), its deployment checkpoint
 * cosigned by the test witness; `receipt-vectors.test.ts` recomputes every step with plain
 * node:crypto, so a format change shows up as a failing test, never as a silently regenerated file.
 * `cases` are the receipt edited (`edits`: set the value at a JSON path) or another receipt, each
 * with a clock, policy and maximum age and what `verifyChainReceipt` returns for it, so a verifier
 * in another language can check it refuses each the same way (python/tests/test_chain_receipts.py).
 */

import { freshnessPolicy } from '../../../../client/freshness-policy';
import { verifyChainReceipt } from '../../../../shared/integrator/chain-receipt';
import { nodeSourceOf } from '../../../../shared/log/node-source';
import { formatVerifierKey } from '../../../../shared/log/note-key';
import { proveRecord } from '../../../../shared/log/record-proof';
import { formatCosignerKey } from '../../../../shared/witness/cosigner-key';
import { markerKey } from '../../../helpers/in-memory-lineage-store';
import {
  cosignedByTestWitness,
  integratedStack,
  unwitnessedTestPolicy,
  witnessedTestPolicy,
} from '../../../helpers/integrated-stack';
import { forgerLogSigner, TEST_LOG_KEY, testLogSigner, verifierKeyOf } from '../../../helpers/pipeline-keys';
import { reAnchoredReceipt } from '../../../helpers/re-anchored-receipt';
import { testCosignerKey, testWitnessSigner } from '../../../helpers/witness-factories';
import { testLineageId } from '../../../helpers/writer-factories';

const LINEAGE = testLineageId('vector-lineage');
const s = integratedStack();
for (const r of ['r-0', 'r-1', 'r-2']) {
  const sealed = await s.send({ lineageId: LINEAGE, residualId: r });
  if (sealed.kind !== 'SEALED') throw new Error(`r sealed: ${JSON.stringify(sealed)}`);
}
await s.integrate();
const nowSeconds = Math.floor(s.clock.now / 1000);
const cosignedAt = nowSeconds - 60;
const head = s.deployment.head;
if (!head?.published) throw new Error('nothing published');
s.deployment.head = { ...head, published: await cosignedByTestWitness(head.published, cosignedAt) };
const policy = await witnessedTestPolicy();
const receipt = await s.client({ deps: { policy } }).chainReceipt(LINEAGE, 1);

// A later deployment checkpoint (one more record integrated): this receipt's index root is not its last leaf.
await s.send({ lineageId: LINEAGE, residualId: 'r-3' });
await s.integrate();
const later = await cosignedByTestWitness(s.deployment.head?.published as string, cosignedAt);

// A residual id sealed twice (its marker deleted by a table writer): the index maps r-1 to seq 1, so
// a receipt of the second record, seq 2, carries the index's true entry and proofs but another record.
const twice = integratedStack();
for (const r of ['r-0', 'r-1']) await twice.send({ lineageId: LINEAGE, residualId: r });
twice.store.markers.delete(markerKey(LINEAGE, 'r-1'));
await twice.sendUnfloored({ lineageId: LINEAGE, residualId: 'r-1' }); // only a sealer without the index floor seals it again
await twice.integrate();
const unwitnessed = unwitnessedTestPolicy();
const mapped = await twice.client({ deps: { policy: unwitnessed } }).chainReceipt(LINEAGE, 1);
const sealedTwice = {
  ...mapped,
  record: await twice.store.readRecord(LINEAGE, 2),
  inclusion: await proveRecord(
    2,
    mapped.inclusion.treeSize,
    nodeSourceOf((refs) => twice.store.readNodes(LINEAGE, refs)),
  ),
};

// A re-anchored history (docs/deployment-log.md, "Re-anchor"): its receipt carries the statement.
const reAnchored = await reAnchoredReceipt();

type Path = readonly (string | number)[];
interface Case {
  readonly name: string;
  readonly edits?: readonly { readonly path: Path; readonly value: unknown }[];
  readonly receipt?: unknown;
  readonly policy?: string;
  readonly nowSeconds?: number;
  readonly maxAgeSeconds: number | null;
}
const flip = (h: string) => `${h[0] === '0' ? '1' : '0'}${h.slice(1)}`;
const firstSibling = (siblings: readonly (string | null)[]) => siblings.findIndex((x) => x !== null);
const lineageSibling = firstSibling(receipt.index.lineage.proof.siblings);
const residualSibling = firstSibling(receipt.index.residual.proof.siblings);
const [body, signatures] = receipt.deployment.checkpoint.split('\n\n') as [string, string];
const [logLine] = signatures.split('\n') as [string];
const bodyLines = body.split('\n');
const tooLate = cosignedAt + 180 + 1;
const cases: Case[] = [
  { name: 'intact, freshness checked', maxAgeSeconds: 180 },
  { name: 'intact, freshness not checked (no maximum age)', maxAgeSeconds: null },
  { name: 'cosignatures too old for the maximum age', nowSeconds: tooLate, maxAgeSeconds: 180 },
  { name: 'cosignatures past the maximum age, none asked: inclusion only', nowSeconds: tooLate, maxAgeSeconds: null },
  { name: 'cosigned in the future', nowSeconds: cosignedAt - 120, maxAgeSeconds: null },
  {
    name: 'edited index proof of the lineage',
    edits: [
      {
        path: ['index', 'lineage', 'proof', 'siblings', lineageSibling],
        value: flip(receipt.index.lineage.proof.siblings[lineageSibling] as string),
      },
    ],
    maxAgeSeconds: 180,
  },
  {
    name: 'edited index proof of the residual id',
    edits: [
      {
        path: ['index', 'residual', 'proof', 'siblings', residualSibling],
        value: flip(receipt.index.residual.proof.siblings[residualSibling] as string),
      },
    ],
    maxAgeSeconds: 180,
  },
  {
    name: 'edited index value: the residual id mapped to another seq',
    edits: [{ path: ['index', 'residual', 'value', 'seq'], value: 2 }],
    maxAgeSeconds: 180,
  },
  {
    name: 'edited index value: a larger lineage head',
    edits: [{ path: ['index', 'lineage', 'value', 'treeSize'], value: 4 }],
    maxAgeSeconds: null,
  },
  {
    name: 'edited index root',
    edits: [{ path: ['index', 'root'], value: flip(receipt.index.root) }],
    maxAgeSeconds: null,
  },
  {
    name: 'wrong deployment checkpoint: a later one, whose last leaf is another index root',
    edits: [{ path: ['deployment', 'checkpoint'], value: later }],
    maxAgeSeconds: 180,
  },
  {
    name: 'wrong deployment checkpoint: its root edited under the signatures',
    edits: [
      {
        path: ['deployment', 'checkpoint'],
        value: `${[bodyLines[0], bodyLines[1], Buffer.alloc(32).toString('base64')].join('\n')}\n\n${signatures}`,
      },
    ],
    maxAgeSeconds: null,
  },
  {
    name: 'wrong deployment checkpoint: the cosignature stripped',
    edits: [{ path: ['deployment', 'checkpoint'], value: `${body}\n\n${logLine}\n` }],
    maxAgeSeconds: null,
  },
  {
    name: 'the log alone (quorum none) with a maximum age: inclusion only, freshness not checked',
    policy: unwitnessed.text,
    maxAgeSeconds: 180,
  },
  {
    name: 'a policy of another log',
    policy: `log ${formatVerifierKey(await verifierKeyOf(forgerLogSigner()))}\nquorum none\n`,
    maxAgeSeconds: null,
  },
  {
    name: 'edited record payload',
    edits: [{ path: ['record', 'payload'], value: { edited: true } }],
    maxAgeSeconds: null,
  },
  {
    name: 'the record offered as another leaf',
    edits: [{ path: ['inclusion', 'leafIndex'], value: 0 }],
    maxAgeSeconds: null,
  },
  {
    name: 'the inclusion proof of another tree size than the index holds',
    edits: [{ path: ['inclusion', 'treeSize'], value: 4 }],
    maxAgeSeconds: null,
  },
  {
    name: 'record not the one the residual id maps (sealed twice)',
    receipt: sealedTwice,
    policy: unwitnessed.text,
    maxAgeSeconds: null,
  },
  { name: 'unknown format', edits: [{ path: ['formatVersion'], value: 3 }], maxAgeSeconds: null },
  { name: 'an unknown member', edits: [{ path: ['deployment', 'extra'], value: 1 }], maxAgeSeconds: null },
  {
    name: 'a malformed index proof',
    edits: [{ path: ['index', 'lineage', 'proof', 'v'], value: 2 }],
    maxAgeSeconds: null,
  },
  {
    name: 'a re-anchored history: the receipt shows the statement its last leaf commits to',
    receipt: reAnchored.receipt,
    policy: reAnchored.policyText,
    nowSeconds: reAnchored.nowSeconds,
    maxAgeSeconds: 180,
  },
  {
    name: 'a re-anchored history: the statement removed',
    receipt: { ...reAnchored.receipt, deployment: { ...reAnchored.receipt.deployment, reAnchor: undefined } },
    edits: [],
    policy: reAnchored.policyText,
    nowSeconds: reAnchored.nowSeconds,
    maxAgeSeconds: 180,
  },
  {
    name: 'a re-anchored history: the statement edited under its signatures',
    receipt: reAnchored.receipt,
    edits: [
      {
        path: ['deployment', 'reAnchor'],
        value: (reAnchored.receipt.deployment.reAnchor ?? '').replace('operator error', 'operator errand'),
      },
    ],
    policy: reAnchored.policyText,
    nowSeconds: reAnchored.nowSeconds,
    maxAgeSeconds: 180,
  },
];

const edited = (c: Case): unknown => {
  const copy = structuredClone(c.receipt ?? receipt) as Record<string | number, unknown>;
  for (const { path, value } of c.edits ?? []) {
    let at = copy;
    for (const step of path.slice(0, -1)) at = at[step] as Record<string | number, unknown>;
    at[path.at(-1) as string | number] = value;
  }
  return copy;
};
const caseRows = await Promise.all(
  cases.map(async (c) => {
    const checkedPolicy = c.policy === undefined ? policy : freshnessPolicy(c.policy);
    const result = verifyChainReceipt(edited(c), {
      policy: checkedPolicy.policy,
      nowSeconds: c.nowSeconds ?? nowSeconds,
      maxAgeSeconds: c.maxAgeSeconds,
    });
    return {
      ...c,
      expected: { verdict: result.verdict, refusal: result.refusal, freshnessChecked: result.freshnessChecked },
    };
  }),
);

console.log(
  JSON.stringify(
    {
      source:
        'test/unit/shared/integrator/receipt-vectors.generate.ts; recomputed by test/unit/shared/integrator/receipt-vectors.test.ts with plain node:crypto (docs/verifiable-log.md, "Receipts")',
      note: 'a format-2 receipt of seq 1 of a lineage of 3 records, integrated once; its deployment checkpoint signed by the log key and cosigned by the witness 60 s before nowSeconds',
      logKey: formatVerifierKey(TEST_LOG_KEY),
      logPublicKeyHex: Buffer.from(await testLogSigner().publicKey()).toString('hex'),
      witnessKey: formatCosignerKey(await testCosignerKey()),
      witnessPublicKeyHex: Buffer.from(await testWitnessSigner().publicKey()).toString('hex'),
      policy: policy.text,
      nowSeconds,
      cosignedAt,
      maxAgeSeconds: 180,
      receipt,
      cases: caseRows,
    },
    null,
    2,
  ),
);
