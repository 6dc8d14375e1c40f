import type { LineageIndexValue } from '../../shared/index/index-entry';
import type { LineageCandidate } from '../../shared/integrator/integrate';
import type { SealedRunNotice } from '../../shared/integrator/sealed-run-notice';
import { proveConsistency } from '../../shared/log/consistency-proof';
import { proveInclusion } from '../../shared/log/inclusion-proof';
import { MemoryMerkleTree } from '../../shared/log/memory-tree';
import { digestOf, hexOf } from './index-factories';

/**
 * A lineage's log as the integrator reads it, in memory: residual ids sealed in order, an RFC 9162
 * tree over their record hashes, and the candidate / notice the integrator's I/O would build.
 * Record hashes are `digestOf(<lineage>/<label>/<seq>)`, so two histories differ by `label`.
 */
export class FakeLineage {
  readonly tree = new MemoryMerkleTree();
  readonly records: { residualId: string; recordHash: string }[] = [];
  generationEpoch = 1;

  constructor(
    readonly lineageId: string,
    readonly label = 'a',
  ) {}

  /** Seals residual ids (default `r-<seq>`), one record each. */
  seal(...residualIds: string[]): this {
    for (const residualId of residualIds.length > 0 ? residualIds : [`r-${this.records.length}`]) {
      const recordHash = digestOf(`${this.lineageId}/${this.label}/${this.records.length}`);
      this.records.push({ residualId, recordHash });
      this.tree.append(Buffer.from(recordHash, 'hex'));
    }
    return this;
  }

  /** The same history up to `size`, continued as `label` (a fork, or a rollback then new writes). */
  forkAt(size: number, label: string): FakeLineage {
    const fork = new FakeLineage(this.lineageId, label);
    for (const record of this.records.slice(0, size)) {
      fork.records.push(record);
      fork.tree.append(Buffer.from(record.recordHash, 'hex'));
    }
    return fork;
  }

  head(size = this.records.length): LineageIndexValue {
    return {
      treeSize: size,
      rootHash: hexOf(this.tree.root(size)),
      headRecordHash: (this.records[size - 1] as { recordHash: string }).recordHash,
      generationEpoch: this.generationEpoch,
      writerPolicyDigest: null,
    };
  }

  /** What the integrator reads for this lineage, given the entry the index holds. */
  async candidate(held: LineageIndexValue | null, size = this.records.length): Promise<LineageCandidate> {
    const from = held?.treeSize ?? 0;
    const consistency =
      held === null || held.treeSize >= size || held.treeSize === 0
        ? []
        : (await proveConsistency(held.treeSize, size, this.tree.nodes)).map(hexOf);
    const records = [];
    for (let seq = from; seq < size; seq += 1) {
      const { residualId, recordHash } = this.records[seq] as { residualId: string; recordHash: string };
      records.push({
        seq,
        residualId,
        recordHash,
        inclusion: (await proveInclusion(seq, size, this.tree.nodes)).map(hexOf),
      });
    }
    // What a late notice of any seq below the indexed size is checked with (docs/deployment-log.md, "Integration", step 3).
    const noticedInclusion = new Map<number, string[]>();
    for (let seq = 0; seq < Math.min(from, size); seq += 1) {
      noticedInclusion.set(seq, (await proveInclusion(seq, size, this.tree.nodes)).map(hexOf));
    }
    return { lineageId: this.lineageId, head: this.head(size), consistency, records, noticedInclusion };
  }

  /** The sealer's notice of the run that ended at `size` and began at `from`. */
  notice(from: number, size = this.records.length): SealedRunNotice {
    return {
      v: 1,
      lineageId: this.lineageId,
      head: this.head(size),
      residuals: this.records.slice(from, size).map((r, i) => ({ ...r, seq: from + i })),
      sealedAtMs: 1_767_225_600_000,
    };
  }
}
