import type { HexDigest } from '../canonical/digest';
import { AnchorKeyMismatchError, InvalidInputError } from '../errors';
import { type AnchorSignature, MacAlgorithm, type MacAnchor } from '../ports/mac-anchor';
import { type RecordBatchPlace, randomRecordBatchSalt, recordBatchMessage, recordBatchOf } from './record-batch';

/** A record sealed on its tip whose MAC is still to be made: its hash and its canonical header bytes. */
export interface RecordToMac {
  readonly recordHash: HexDigest;
  /** `headerBytes(header)`: the single form's MAC message. */
  readonly message: Uint8Array;
}

/** A record's seal: the MAC, and for a batch MAC the record's place in the batch. */
export interface RecordMac {
  readonly anchor: AnchorSignature;
  readonly macBatch?: RecordBatchPlace;
}

/**
 * One `GenerateMac` for `records` (docs/sealing.md, "The record and its seal"): one record gets the
 * single form, the MAC of its header bytes (what every record had before batches, and no place to
 * store); several get one batch MAC over `recordBatchMessage` of their count and the RFC 9162 root
 * of their salted record hashes, leaf `i` being `records[i]`, each with its place (salt included).
 * Answers by position. Pure apart from the anchor call and the salts.
 *
 * @param salt - the salt of each batch record, fresh random bytes unless a test fixes them
 *
 * @throws {RangeError} when `records` is empty
 * @throws {AnchorKeyMismatchError} when the anchor signs under a key other than `anchor.keyId`
 * @throws {InvalidInputError} when the anchor answers with an algorithm other than HMAC_SHA_256
 * @throws whatever `anchor.generateMac` throws (key disabled, unreachable)
 */
export async function macRecords(
  records: readonly RecordToMac[],
  anchor: MacAnchor,
  salt: (index: number) => string = randomRecordBatchSalt,
): Promise<RecordMac[]> {
  if (records.length === 0) throw new RangeError('no records to MAC');
  if (records.length === 1) {
    const signature = checked(anchor, await anchor.generateMac((records[0] as RecordToMac).message));
    return [{ anchor: signature }];
  }
  const { root, places } = await recordBatchOf(
    records.map((record, i) => ({ recordHash: record.recordHash, salt: salt(i) })),
  );
  const signature = checked(anchor, await anchor.generateMac(recordBatchMessage(records.length, root)));
  return places.map((macBatch) => ({ anchor: signature, macBatch }));
}

/** The signature's three fields, once its key and algorithm are the anchor's. */
function checked(anchor: MacAnchor, signature: AnchorSignature): AnchorSignature {
  if (signature.keyId !== anchor.keyId) throw new AnchorKeyMismatchError(anchor.keyId, signature.keyId);
  if (signature.algorithm !== MacAlgorithm.HMAC_SHA_256) {
    throw new InvalidInputError('anchor signature', [
      { path: 'algorithm', message: `expected HMAC_SHA_256, got ${signature.algorithm}` },
    ]);
  }
  return { keyId: signature.keyId, algorithm: signature.algorithm, mac: signature.mac };
}
