/**
 * The one time helper (client/iso-time.ts), re-exported for the MCP modules that still import it
 * from here: out-of-range times are shown as `(invalid time <ms>)`, never thrown.
 */
export { isoTime } from '../client/iso-time';
