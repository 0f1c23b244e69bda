import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BinaryHeap } from './binary-heap.js';

describe('BinaryHeap', () => {
  it('pops in order whatever the pushes, replaceTop included', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 })), fc.array(fc.integer({ min: -50, max: 50 })), (pushed, replacements) => {
        const heap = new BinaryHeap<number>((a, b) => a - b);
        for (const n of pushed) heap.push(n);
        const all = [...pushed];
        for (const n of replacements) {
          if (heap.size === 0) break;
          all.splice(all.indexOf(heap.peek()!), 1, n);
          heap.replaceTop(n);
        }
        const popped: number[] = [];
        while (heap.size > 0) popped.push(heap.pop()!);
        expect(popped).toEqual(all.sort((a, b) => a - b));
        expect(heap.pop()).toBeUndefined();
      }),
    );
  });
});
