/**
 * `reseal/openai-agents`: an OpenAI Agents SDK `Session` kept in a Reseal lineage
 * (docs/frameworks.md, "OpenAI Agents SDK (TypeScript)"). `@openai/agents-core` is an optional
 * peer dependency: this entry point imports only its types.
 */

export { SessionWriteRefusedError, SessionWriteUnprovenError } from './errors';
export {
  DEFAULT_CHECKPOINT_FILE,
  type ProvenSessionHistory,
  ResealSession,
  type ResealSessionBinding,
  type ResealSessionConnectOptions,
} from './reseal-session';
