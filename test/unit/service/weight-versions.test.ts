import { describe, expect, it } from 'vitest';
import { WeightVersions } from '../../../src/service/weight-versions.js';

describe('weight versions a service has served', () => {
  it('counts the updates since a version was named, in the order resumes named them', () => {
    const versions = new WeightVersions();
    expect(versions.current).toBeNull();
    expect(versions.behind(null)).toBe(0);
    versions.name('10');
    versions.name('10'); // named again: no update
    versions.name('3'); // labels are opaque: only the order counts
    expect(versions.current).toBe('3');
    expect([versions.behind('3'), versions.behind('10'), versions.behind(null)]).toEqual([0, 1, 2]);
    expect(versions.behind('never-served')).toBeNull();
  });

  it('measures from the last time a version was named when it comes back', () => {
    const versions = new WeightVersions();
    for (const v of ['a', 'b', 'a', 'c']) versions.name(v);
    expect(versions.behind('a')).toBe(1);
    expect(versions.behind('b')).toBe(2);
  });

  it('carries on from the versions a killed service stored, and says which naming was an update', () => {
    const versions = new WeightVersions(['1', '2']);
    expect(versions.current).toBe('2');
    expect(versions.behind('1')).toBe(1);
    expect(versions.behind(null)).toBe(2);
    expect(versions.name('2')).toBe(false);
    expect(versions.name('3')).toBe(true);
    expect(versions.behind('1')).toBe(2);
  });
});
