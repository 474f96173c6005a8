import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, heapGrowthFlag } from '../../../src/cli/heap-tuning.js';

describe('heapGrowthFlag (what gateway serve sets)', () => {
  it('caps the heap growth when the operator said nothing', () => {
    expect(heapGrowthFlag([], undefined)).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(heapGrowthFlag(['--enable-source-maps'], '--max-old-space-size=512')).toBe('--heap-growing-percent=60');
  });

  it("leaves the operator's own choice alone, as a node flag or in NODE_OPTIONS, either spelling", () => {
    expect(heapGrowthFlag(['--heap-growing-percent=200'], undefined)).toBeUndefined();
    expect(heapGrowthFlag([], '--heap_growing_percent=10 --max-old-space-size=512')).toBeUndefined();
  });

  it('is a flag this V8 knows (node refuses unknown V8 flags)', () => {
    const flag = heapGrowthFlag([], undefined)!;
    // A V8 flag node does not know makes it exit with "bad option".
    expect(execFileSync(process.execPath, [flag, '-e', 'process.stdout.write("ok")']).toString()).toBe('ok');
  });
});
