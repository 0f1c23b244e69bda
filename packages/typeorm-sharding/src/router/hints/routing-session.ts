import { mergePositions, type GtidPosition } from '../lag/gtid.js';

/**
 * Routing state that outlives one statement: the writes a session must read back
 * (read-your-writes) and the node a sticky session reads from, per server. One per
 * `withRouting` scope (shared by nested scopes), or one per QueryRunner if the engine wants
 * read-your-writes per runner.
 */
export class RoutingSession {
  /** Newest GTID position this session wrote, per server. */
  readonly written = new Map<string, GtidPosition>();
  /**
   * Per server, the time (router clock) of the first write of this session whose GTID could not
   * be learnt: until a primary position read after it is known, the session reads the primary.
   */
  readonly unknownWriteSince = new Map<string, number>();
  /** Node a sticky session reads from, per server. */
  readonly stickyNodes = new Map<string, string>();

  /** Records a write's GTID position on `server`. */
  noteWrite(server: string, position: GtidPosition): void {
    const before = this.written.get(server);
    this.written.set(server, before === undefined ? position : mergePositions(before, position));
  }

  /** Records a write on `server` whose GTID is unknown, finished at `at`. */
  noteUnknownWrite(server: string, at: number): void {
    if (!this.unknownWriteSince.has(server)) this.unknownWriteSince.set(server, at);
  }

  /** Whether the session wrote on `server` (with a known GTID or not). */
  wrote(server: string): boolean {
    return this.written.has(server) || this.unknownWriteSince.has(server);
  }
}
