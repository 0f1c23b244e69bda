import { coversPosition, mergePositions, type GtidPosition } from './gtid.js';

interface Sample {
  readonly at: number;
  position: GtidPosition;
}

/**
 * Recent GTID positions of a primary with the time they were seen (from the lag monitor's
 * `@@gtid_binlog_pos` and from the GTIDs writes report). A replica's lag is then the age of
 * the oldest primary position it has not applied: `Seconds_Behind_Master` alone says nothing
 * when replication is stopped (NULL) and has a resolution of one second.
 */
export class PrimaryPositions {
  private readonly samples: Sample[] = [];

  /**
   * @param resolutionMs positions seen within this time of the previous sample extend it (the
   *   sample keeps its earlier time: the estimate errs on the side of more lag, by at most this)
   * @param capacity samples kept; with the defaults they span at least 60 s, far beyond any
   *   lag threshold, so dropping the oldest never hides a lag that matters
   */
  constructor(
    private readonly resolutionMs = 100,
    private readonly capacity = 600,
  ) {}

  /** Records that the primary had reached `position` at time `at`. */
  add(at: number, position: GtidPosition): void {
    const last = this.samples[this.samples.length - 1];
    if (last !== undefined) {
      if (coversPosition(last.position, position)) return;
      if (at - last.at < this.resolutionMs) {
        last.position = mergePositions(last.position, position);
        return;
      }
      position = mergePositions(last.position, position);
    }
    this.samples.push({ at, position });
    if (this.samples.length > this.capacity) this.samples.shift();
  }

  /** The newest position seen, if any. */
  get latest(): GtidPosition | undefined {
    return this.samples[this.samples.length - 1]?.position;
  }

  /**
   * How long, at `now`, a replica that has applied `applied` has been missing writes: 0 when it
   * has applied the newest known position, else `now` minus the time of the oldest sample it
   * has not reached.
   */
  lagMs(applied: GtidPosition, now: number): number {
    for (const sample of this.samples) {
      if (!coversPosition(applied, sample.position)) return Math.max(0, now - sample.at);
    }
    return 0;
  }
}

/**
 * The lag used for routing: the larger of the GTID estimate and `Seconds_Behind_Master`
 * (which also sees the primary's own time stamps, e.g. `MASTER_DELAY`).
 */
export function combinedLagMs(gtidLagMs: number | undefined, secondsBehind: number | null): number | undefined {
  const fromStatus = secondsBehind === null ? undefined : secondsBehind * 1000;
  if (gtidLagMs === undefined) return fromStatus;
  if (fromStatus === undefined) return gtidLagMs;
  return Math.max(gtidLagMs, fromStatus);
}
