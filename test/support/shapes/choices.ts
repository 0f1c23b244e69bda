/**
 * Every random decision of the generator reads the next number of a fixed sequence (the
 * way Hypothesis draws from a byte stream). fast-check generates and shrinks the sequence
 * itself: a shorter sequence, or smaller numbers, give a simpler query, because choice 0 is
 * always the simplest option and a used-up sequence answers 0. Shrinking then needs no
 * knowledge of the query AST.
 */
export class Choices {
  /** Choices are numbers in [0, RANGE): small, so that shrinking one takes few steps. */
  static readonly RANGE = 1024;

  private next = 0;

  constructor(private readonly sequence: readonly number[]) {}

  /** An integer in [0, n); 0 once the sequence is used up. */
  int(n: number): number {
    if (n <= 1) return 0;
    if (n > Choices.RANGE) throw new Error(`a choice among ${n} options needs numbers beyond ${Choices.RANGE}`);
    const v = this.sequence[this.next++];
    return v === undefined ? 0 : v % n;
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** True with probability p; choice 0 is false. */
  chance(p: number): boolean {
    if (p <= 0) return false;
    if (p >= 1) return true;
    return this.int(Choices.RANGE) >= Choices.RANGE - Math.round(p * Choices.RANGE);
  }

  /** One of the options, uniformly; choice 0 is the first. */
  pick<T>(options: readonly T[]): T {
    if (options.length === 0) throw new Error('pick from no options');
    return options[this.int(options.length)]!;
  }

  /** One of the options by weight (weights may be 0); choice 0 is the first option of positive weight. */
  weighted<T>(options: readonly (readonly [number, T])[]): T {
    const total = options.reduce((s, [w]) => s + Math.max(0, w), 0);
    if (total <= 0) throw new Error('weighted pick with no positive weight');
    let r = (this.int(Choices.RANGE) / Choices.RANGE) * total;
    for (const [w, value] of options) {
      if (w <= 0) continue;
      if (r < w) return value;
      r -= w;
    }
    return options.filter(([w]) => w > 0).at(-1)![1];
  }
}
