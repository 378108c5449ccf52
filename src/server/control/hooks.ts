import type { GeneratedSecret } from './secrets.js';
import type { StateDocument } from '../../store/index.js';

/** What the control plane needs from the emulator that the server floor cannot do itself. */
export interface ControlHooks {
  /** `GET /_emu/health`'s answer, for a caller that reached the emulator under the name `reachedAs` (its `Host`). */
  health: (reachedAs: string | undefined) => Record<string, unknown> & { ready: boolean };
  /**
   * `PUT /_emu/state`: a state document or a fixture file, validated, secrets kept where redacted; the secrets it had
   * to make (redacted in the export, defined nowhere else).
   */
  importState: (input: unknown) => Promise<GeneratedSecret[]>;
  /** Replaces the whole state with a checked document (snapshot restore), counters kept. */
  replaceState: (document: StateDocument) => Promise<void>;
  /** Back to the fixtures (or empty), real clock, no faults. */
  reset: (options: { empty?: boolean }) => Promise<void>;
  /** `POST /_emu/token`: a signed test token; throws with a reason a person can act on. */
  issueToken: (request: { tenant?: string; scopes?: string[]; platform?: boolean; ttlSeconds?: number }) => unknown;
}
