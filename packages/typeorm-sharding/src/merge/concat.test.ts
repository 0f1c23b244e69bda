import { describe, expect, it } from 'vitest';
import { collectRows } from './collect-rows.js';
import { createConcat } from './concat.js';
import { createLimit } from './limit.js';
import { fakeInput, show } from './testing/fake-input.js';

describe('Concat', () => {
  it('yields the inputs one after another', async () => {
    const concat = createConcat([fakeInput([{ id: 3 }, { id: 1 }]), fakeInput([]), fakeInput([{ id: 2 }])]);
    expect((await collectRows(concat)).map(show)).toEqual(['id=3', 'id=1', 'id=2']);
    expect(concat.describe()).toBe('Concat over 3 inputs');
  });

  it('reads one input at a time', async () => {
    const log: string[] = [];
    await collectRows(createConcat([fakeInput([{ id: 1 }], { name: 's0', log }), fakeInput([{ id: 2 }], { name: 's1', log })]));
    expect(log).toEqual(['s0: next → id=1', 's0: next → done', 's1: next → id=2', 's1: next → done']);
  });

  it('closes the current input and the unread ones when the consumer stops', async () => {
    const log: string[] = [];
    const inputs = [
      fakeInput([{ id: 1 }, { id: 2 }], { name: 's0', log }),
      fakeInput([{ id: 3 }], { name: 's1', log }),
      fakeInput([{ id: 4 }], { name: 's2', log }),
    ];
    expect((await collectRows(createLimit(createConcat(inputs), 0, 1))).map(show)).toEqual(['id=1']);
    expect(log).toEqual(['s0: next → id=1', 's0: return', 's1: return', 's2: return']);
    expect(inputs.map((input) => input.pulled)).toEqual([1, 0, 0]);
  });

  it('propagates a failure before the first row and closes the unread inputs', async () => {
    const log: string[] = [];
    const inputs = [
      fakeInput([{ id: 1 }], { name: 's0', log }),
      fakeInput([], { name: 's1', log, failAt: 0, error: new Error('down') }),
      fakeInput([{ id: 4 }], { name: 's2', log }),
    ];
    await expect(collectRows(createConcat(inputs))).rejects.toThrow('down');
    expect(log).toEqual(['s0: next → id=1', 's0: next → done', 's1: next → error down', 's2: return']);
  });

  it('propagates a failure mid-stream and closes the unread inputs', async () => {
    const log: string[] = [];
    const inputs = [fakeInput([{ id: 1 }, { id: 2 }], { name: 's0', log, failAt: 1 }), fakeInput([{ id: 3 }], { name: 's1', log })];
    await expect(collectRows(createConcat(inputs))).rejects.toThrow('s0 failed');
    expect(log).toEqual(['s0: next → id=1', 's0: next → error s0 failed', 's1: return']);
  });
});
