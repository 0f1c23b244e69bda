/** A place in a server's binlog: file and offset (and the GTID position there, for the record). */
export interface BinlogPosition {
  readonly file: string;
  readonly pos: number;
  readonly gtid?: string | undefined;
}

/**
 * Orders two positions of one server's binlog. File names carry a zero-padded sequence
 * number (`bin.000012`), so the name order is the file order.
 */
export function comparePositions(a: BinlogPosition, b: BinlogPosition): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.pos - b.pos;
}

/** `file:pos`, for messages and status. */
export function describePosition(p: BinlogPosition | undefined): string {
  return p ? `${p.file}:${p.pos}` : 'none';
}
