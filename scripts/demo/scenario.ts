import { soleWriterLineageId } from '../../client/sole-writer-policy';
import { LocalWriterSigner } from '../../shared/authorship/local-writer-signer';
import type { JsonValue } from '../../shared/canonical/canonical-json';
import type { RunnerSnapshot } from './snapshots';

/**
 * The demo's cast (pure data and pure functions, no AWS): a few agent lineages whose claims
 * depend on real keys of the runner-image snapshots, when each writes and when it is recalled.
 *
 * Key names are those of examples/runner-images/README.md ("Record format"). A claim names its
 * causal keys (the manifest's `claimDependencyMap`); an entry that is a list names alternatives,
 * the first present in the environment being the one used (the report renamed
 * `tool:docker compose v2` to `tool:docker compose` in 2026, so the compose claim's key
 * vanishes and its re-probe finds the new name). A claim may also rest on keys being absent
 * (`absentKeys`, declared absent in the manifest): podman, buildah and skopeo are not in the
 * first Ubuntu 24.04 report and arrive in the second, which quarantines the claim resting on
 * their absence.
 */

/** One causal key, or alternatives of which the first present is used. */
export type CausalKeyChoice = string | readonly string[];

/** A conclusion an agent keeps, and the environment keys it rests on. */
export interface ClaimTemplate {
  readonly claimId: string;
  /** What the agent concluded, for humans. */
  readonly statement: string;
  readonly causalKeys: readonly CausalKeyChoice[];
  /**
   * Keys the conclusion rests on being absent from the environment. They are declared absent in
   * the manifest, so their appearance invalidates the claim; while one is present the claim
   * cannot be stated.
   */
  readonly absentKeys?: readonly string[];
}

/** An agent's memory lineage in the demo. */
export interface LineageTemplate {
  /** Short name, unique in the scenario (the lineage id adds the run id). */
  readonly name: string;
  readonly description: string;
  /** Keys whose drift invalidates the whole record (the manifest's `structuralKeys`). */
  readonly structuralKeys: readonly string[];
  readonly claims: readonly ClaimTemplate[];
}

/** The lineages of the demo; keys present in examples/runner-images/ubuntu-24.04.jsonl. */
export const LINEAGE_TEMPLATES: readonly LineageTemplate[] = [
  {
    name: 'node-build',
    description: 'a CI agent that learned how to build a Node.js service on this runner',
    structuralKeys: ['os:version'],
    claims: [
      {
        claimId: 'node-runtime-in-engines-range',
        statement: "the preinstalled Node.js satisfies the service's engines range",
        causalKeys: ['language:node.js'],
      },
      {
        claimId: 'npm-ci-lockfile-v3',
        statement: 'npm ci accepts the lockfileVersion 3 lockfile',
        causalKeys: ['package-manager:npm'],
      },
      {
        claimId: 'yarn-classic-workspaces',
        statement: 'yarn classic runs the workspace scripts',
        causalKeys: ['package-manager:yarn'],
      },
      {
        claimId: 'native-addons-compile',
        statement: 'native addons compile with the system toolchain',
        causalKeys: ['language:gnu c++', 'apt:make'],
      },
    ],
  },
  {
    name: 'python-ci',
    description: 'a test agent that learned how to run a Python project here',
    structuralKeys: ['os:version'],
    claims: [
      {
        claimId: 'system-python-3-12',
        statement: 'the system interpreter is CPython 3.12',
        causalKeys: ['language:python'],
      },
      {
        claimId: 'pip-resolver-backtracks',
        statement: "pip's resolver installs the pinned requirements",
        causalKeys: ['package-manager:pip'],
      },
      {
        claimId: 'pipx-lint-tools',
        statement: 'linters install in isolation with pipx',
        causalKeys: ['package-manager:pipx', 'tool:yamllint'],
      },
      {
        claimId: 'cryptography-wheel-builds',
        statement: 'the cryptography wheel builds against the system OpenSSL headers',
        causalKeys: ['apt:libssl-dev'],
      },
    ],
  },
  {
    name: 'container-deploy',
    description: 'a deploy agent that learned how to build and ship containers from this runner',
    structuralKeys: ['os:version'],
    claims: [
      {
        claimId: 'docker-engine-api',
        statement: 'client and daemon agree on the Docker Engine API version',
        causalKeys: ['tool:docker client', 'tool:docker server'],
      },
      {
        claimId: 'buildx-multiarch',
        statement: 'buildx builds the linux/amd64 + linux/arm64 image',
        causalKeys: ['tool:docker-buildx'],
      },
      {
        claimId: 'compose-integration-stack',
        statement: 'docker compose brings up the integration stack',
        causalKeys: [['tool:docker compose v2', 'tool:docker compose']],
      },
      {
        claimId: 'ecr-login',
        statement: 'the ECR credential helper logs in without a password prompt',
        causalKeys: ['tool:docker amazon ecr credential helper'],
      },
      {
        claimId: 'kubectl-rollout',
        statement: 'kubectl rollout status works against the cluster',
        causalKeys: ['tool:kubectl'],
      },
      {
        claimId: 'single-container-runtime',
        statement:
          'Docker is the only container runtime: no podman, buildah or skopeo to pick up images, sockets or registry credentials',
        causalKeys: [],
        absentKeys: ['tool:buildah', 'tool:podman', 'tool:skopeo'],
      },
    ],
  },
];

/** Claims resolved against one environment. */
export interface ResolvedClaims {
  /**
   * claim id → causal keys present in the environment (sorted, unique; empty for a claim that
   * rests only on absent keys). {@link manifestClaimMap} adds the keys declared absent.
   */
  readonly claimDependencyMap: Record<string, string[]>;
  /**
   * Claims that cannot be stated here: one of their causal keys (and every alternative) is
   * absent, or one of the keys they rest on being absent is present.
   */
  readonly unavailable: string[];
}

/**
 * Resolves a lineage's claims against an environment: each causal key choice becomes the first
 * of its alternatives present in `env`; a claim with a choice that has none, or with a key of
 * `absentKeys` present, is unavailable.
 */
export function resolveClaims(
  lineage: LineageTemplate,
  env: Readonly<Record<string, string>>,
  claimIds: readonly string[] = lineage.claims.map((c) => c.claimId),
): ResolvedClaims {
  const claimDependencyMap: Record<string, string[]> = {};
  const unavailable: string[] = [];
  for (const claim of lineage.claims) {
    if (!claimIds.includes(claim.claimId)) continue;
    const keys: string[] = [];
    for (const choice of claim.causalKeys) {
      const alternatives = typeof choice === 'string' ? [choice] : choice;
      const present = alternatives.find((key) => Object.hasOwn(env, key));
      if (present === undefined) break;
      keys.push(present);
    }
    const absentStillAbsent = (claim.absentKeys ?? []).every((key) => !Object.hasOwn(env, key));
    if (keys.length === claim.causalKeys.length && absentStillAbsent) {
      claimDependencyMap[claim.claimId] = [...new Set(keys)].sort();
    } else unavailable.push(claim.claimId);
  }
  return { claimDependencyMap, unavailable: unavailable.sort() };
}

/** The keys each claim of `claimIds` declares absent (claims that declare none are left out). */
export function absentKeysOf(lineage: LineageTemplate, claimIds: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const claim of lineage.claims) {
    if (claimIds.includes(claim.claimId) && (claim.absentKeys ?? []).length > 0) {
      out[claim.claimId] = [...new Set(claim.absentKeys)].sort();
    }
  }
  return out;
}

/**
 * The claim map `buildManifest` takes for a sealed claim map: each claim's causal keys, and
 * `{ causalKeys, absentKeys }` for a claim whose template declares keys absent, so the manifest
 * records them (format 2) and triage invalidates the claim when one of them appears.
 */
export function manifestClaimMap(
  lineage: LineageTemplate,
  claimDependencyMap: Readonly<Record<string, readonly string[]>>,
): Record<string, string[] | { causalKeys: string[]; absentKeys: string[] }> {
  const absent = absentKeysOf(lineage, Object.keys(claimDependencyMap));
  const out: Record<string, string[] | { causalKeys: string[]; absentKeys: string[] }> = {};
  for (const [claimId, keys] of Object.entries(claimDependencyMap)) {
    const declared = absent[claimId];
    out[claimId] = declared === undefined ? [...keys] : { causalKeys: [...keys], absentKeys: declared };
  }
  return out;
}

/** Structural keys of a lineage that the environment has (a key absent at write time cannot be sealed). */
export function presentStructuralKeys(lineage: LineageTemplate, env: Readonly<Record<string, string>>): string[] {
  return lineage.structuralKeys.filter((key) => Object.hasOwn(env, key)).sort();
}

/** A lineage as the demo runs it. */
export interface LineagePlan {
  readonly template: LineageTemplate;
  /**
   * `demo-<runId>-<name>.<digest>`: the self-certifying id under {@link LineagePlan.writer}'s
   * policy (docs/authorship.md), unique per run, so runs never share a lineage.
   */
  readonly lineageId: string;
  /** The agent's own writer key (fresh per run): it alone may write this lineage. */
  readonly writer: LocalWriterSigner;
  /** Position in the slice of the snapshot the lineage's first record is written at. */
  readonly writeAt: number;
  /**
   * Positions in the slice of the snapshots it is recalled at, in order. The first is the
   * write snapshot itself (a same-environment recall: NO_DRIFT), then every later snapshot.
   */
  readonly recallAt: readonly number[];
}

/** The whole demo plan. */
export interface DemoScenario {
  readonly runId: string;
  readonly lineages: readonly LineagePlan[];
  /** The lineage whose resumed session tries a write with an unverified inherited variable. */
  readonly refusedWrite: { readonly lineageId: string; readonly variableName: string; readonly variableValue: string };
  /** The lineage whose latest record is edited behind the sealer's back, after its recalls. */
  readonly tamperLineageId: string;
}

/**
 * Plans the demo over a slice: every lineage writes at the slice's first snapshot, is recalled
 * there once (same environment) and then at every later snapshot of the slice. The node-build
 * lineage also gets the refused write; the python-ci lineage gets tampered with.
 *
 * @param runId - 1–40 chars of `[a-z0-9-]`, unique per run
 * @throws {RangeError} for a bad run id or a slice of fewer than two snapshots
 */
export function buildScenario(
  slice: readonly RunnerSnapshot[],
  runId: string,
  templates: readonly LineageTemplate[] = LINEAGE_TEMPLATES,
): DemoScenario {
  if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(runId))
    throw new RangeError(`run id must be 1–40 chars of [a-z0-9-], got ${runId}`);
  if (slice.length < 2) throw new RangeError('the demo needs at least two snapshots');
  const first = slice[0] as RunnerSnapshot;
  const lineages = templates
    .filter((t) => Object.keys(resolveClaims(t, first.env).claimDependencyMap).length > 0)
    .map((template) => {
      const writer = LocalWriterSigner.generate(`${template.name}-agent`).signer;
      return {
        template,
        writer,
        lineageId: soleWriterLineageId(`demo-${runId}-${template.name}`, writer),
        writeAt: 0,
        recallAt: slice.map((_, i) => i),
      };
    });
  if (lineages.length === 0) throw new RangeError(`no demo claim can be stated at snapshot ${first.index}`);
  const byName = (name: string) => (lineages.find((l) => l.template.name === name) ?? lineages[0]) as LineagePlan;
  return {
    runId,
    lineages,
    refusedWrite: {
      lineageId: byName('node-build').lineageId,
      variableName: 'runner-instance-id',
      variableValue: `runner-${first.image_version}-7`,
    },
    tamperLineageId: byName('python-ci').lineageId,
  };
}

/** What an agent stored about one claim. */
export interface ClaimBody {
  readonly statement: string;
  /** The causal keys' values when the claim was last probed. */
  readonly observed: Record<string, string>;
  /** The keys the claim rests on being absent, observed absent when it was last probed (omitted when none). */
  readonly observedAbsent?: string[];
  /** Index of the snapshot the claim was last probed at. */
  readonly probedAtSnapshot: number;
}

/**
 * The claim map of the record that supersedes one after triage: retained claims keep the causal
 * keys they were sealed with; re-probed claims are resolved again on the current environment
 * (a vanished key may resolve to its successor; a claim with no key left is dropped).
 */
export function nextClaimMap(
  lineage: LineageTemplate,
  previous: Readonly<Record<string, readonly string[]>>,
  retained: readonly string[],
  reprobe: readonly string[],
  env: Readonly<Record<string, string>>,
): ResolvedClaims {
  const resolved = resolveClaims(lineage, env, reprobe);
  const claimDependencyMap: Record<string, string[]> = {};
  for (const claimId of retained) {
    const keys = previous[claimId];
    if (keys === undefined) throw new Error(`retained claim ${claimId} is not in the previous manifest`);
    claimDependencyMap[claimId] = [...keys];
  }
  Object.assign(claimDependencyMap, resolved.claimDependencyMap);
  return { claimDependencyMap: sortRecord(claimDependencyMap), unavailable: resolved.unavailable };
}

function sortRecord<V>(record: Record<string, V>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key] as V;
  return out;
}

/** The payload of a demo residual: the claims and where they were made. */
export interface ResidualBody {
  readonly lineage: string;
  readonly series: string;
  readonly snapshotIndex: number;
  readonly imageVersion: string;
  readonly claims: Record<string, ClaimBody>;
}

/**
 * Payload of a record written at `snapshot`: `reprobed` claims get fresh observations there;
 * the others are carried over unchanged from `previous` (claims triage retained).
 *
 * @throws {Error} when a carried-over claim is missing from `previous` (a scenario bug)
 */
export function residualBody(
  lineage: LineageTemplate,
  snapshot: RunnerSnapshot,
  claimDependencyMap: Readonly<Record<string, readonly string[]>>,
  reprobed: readonly string[],
  previous: ResidualBody | null,
): ResidualBody {
  const claims: Record<string, ClaimBody> = {};
  for (const claimId of Object.keys(claimDependencyMap).sort()) {
    const template = lineage.claims.find((c) => c.claimId === claimId);
    if (template === undefined) throw new Error(`unknown claim ${claimId} in lineage ${lineage.name}`);
    if (reprobed.includes(claimId)) {
      const observed: Record<string, string> = {};
      for (const key of claimDependencyMap[claimId] ?? []) observed[key] = snapshot.env[key] as string;
      const absent = (template.absentKeys ?? []).filter((key) => !Object.hasOwn(snapshot.env, key)).sort();
      claims[claimId] = {
        statement: template.statement,
        observed,
        ...(absent.length > 0 ? { observedAbsent: absent } : {}),
        probedAtSnapshot: snapshot.index,
      };
    } else {
      const kept = previous?.claims[claimId];
      if (kept === undefined) throw new Error(`claim ${claimId} is neither re-probed nor in the previous record`);
      claims[claimId] = kept;
    }
  }
  return {
    lineage: lineage.name,
    series: snapshot.series,
    snapshotIndex: snapshot.index,
    imageVersion: snapshot.image_version,
    claims,
  };
}

/** {@link ResidualBody} as a JSON payload. */
export function asPayload(body: ResidualBody): JsonValue {
  return body as unknown as JsonValue;
}
