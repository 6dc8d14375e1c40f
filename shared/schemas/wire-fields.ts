/**
 * The field list of every wire type that has a hand-written fast validator
 * (docs/canonical-form.md, "Validate once at each trust boundary", says why those exist) or a
 * byte template, spelled once. The fast validators take their key sets from here, and
 * test/unit/shared/schemas/wire-fields.test.ts checks each list against its zod schema's shape
 * (every key, and which are optional), so a field added to a schema and not here, or here and
 * not to the schema, fails that test instead of silently sending every value to the slow path
 * (or letting the fast path accept a key set the schema refuses).
 *
 * Per wire type: `required` keys, `optional` keys the fast validator accepts, and `leftToSchema`:
 * optional keys the fast validator does not handle (a value holding one goes to the schema).
 */
export const WireFields = {
  /** `SealedRecordSchema` (shared/seal/sealed-record.ts). */
  sealedRecord: {
    required: ['header', 'recordHash', 'anchor', 'payload', 'manifest', 'variablesUsed', 'sealedAtMs'],
    /** A batch MAC's place (shared/seal/record-batch.ts), checked by hand as well. */
    optional: ['macBatch'],
    /** Format 2's fields (docs/authorship.md): a format-2 record goes to the schema. */
    leftToSchema: ['writer', 'boundary', 'declaredImmutableConstants', 'policy'],
  },
  /** `RecordHeaderSchema` (shared/seal/record-header.ts), also the members of its byte template `encodeHeaderWithHash`. */
  recordHeader: {
    required: [
      'formatVersion',
      'lineageId',
      'monotonicSequenceNumber',
      'residualId',
      'sessionId',
      'payloadHash',
      'parentRecordHash',
      'generationEpoch',
      'authority',
      'manifestDigest',
      'verdictDigest',
      'variablesDigest',
      'sealedAtMs',
      'keyId',
      'supersedes',
    ],
    optional: [],
    /** Format 2's fields (docs/authorship.md): a format-2 header goes to the schema. */
    leftToSchema: ['writerDigest', 'boundaryDigest', 'policyDigest'],
  },
  /** `AnchorSignatureSchema` (shared/seal/sealed-record.ts). */
  anchorSignature: { required: ['keyId', 'algorithm', 'mac'], optional: [], leftToSchema: [] },
  /** `RecordRefSchema` (shared/schemas/record-ref.ts), a record's `supersedes`. */
  recordRef: { required: ['seq', 'recordHash'], optional: [], leftToSchema: [] },
  /**
   * `SessionVariableSchema` (shared/write/session-variable.ts): the fast validator and the byte
   * template of `variablesDigest` take a variable without a receipt.
   */
  sessionVariable: {
    required: ['name', 'value', 'freshness', 'sourceEpoch'],
    optional: [],
    leftToSchema: ['receipt'],
  },
  /** `SealInputSchema` (shared/seal/seal-input.ts). */
  sealInput: {
    required: [
      'lineageId',
      'residualId',
      'sessionId',
      'payload',
      'generationEpoch',
      'authority',
      'manifest',
      'verdictDigest',
      'variablesUsed',
    ],
    optional: ['supersedes'],
    /** Format 2's fields (docs/authorship.md): such an input goes to the schema. */
    leftToSchema: ['writer', 'boundary', 'declaredImmutableConstants', 'policy'],
  },
  /**
   * `SealedDependencyManifestV1Schema` (shared/triage/sealed-dependency-manifest.ts); format 2
   * always goes to the schema.
   */
  manifestV1: {
    required: ['formatVersion', 'preconditionSeal', 'baselineKeyHashes', 'structuralKeys', 'claimDependencyMap'],
    optional: [],
    leftToSchema: [],
  },
  /** `SealRequestSchema` (shared/pipeline/seal-request.ts), the sealer's boundary. */
  sealRequest: {
    required: ['formatVersion', 'request', 'verdict', 'acceptedAtMs'],
    optional: ['senderId'],
    leftToSchema: [],
  },
} as const satisfies Record<
  string,
  {
    readonly required: readonly string[];
    readonly optional: readonly string[];
    readonly leftToSchema: readonly string[];
  }
>;
