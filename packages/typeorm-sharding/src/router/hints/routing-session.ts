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
  /** Node a sticky session reads from, per server. */
  readonly stickyNodes = new Map<string, string>();

  /** Records a write's GTID position on `server`. */
  noteWrite(server: string, position: GtidPosition): void {
    const before = this.written.get(server);
    this.written.set(server, before === undefined ? position : mergePositions(before, position));
  }
}
