import { describe, expect, it } from 'vitest';
import { barChart } from '../../../src/analytics/charts/bar-chart.js';
import { pairedBarChart } from '../../../src/analytics/charts/paired-bars.js';
import { timelineChart } from '../../../src/analytics/charts/timeline-chart.js';
import { rolloutTimeline } from '../../../src/analytics/rollout-timeline.js';
import { harnessCalls } from '../../helpers/harness-calls.js';

/** The data points a chart's markup carries, and each point's bar width. */
function points(svg: string): { label: string; side?: string; value: string; width: number | null }[] {
  return [...svg.matchAll(/<g class="point[^"]*" data-label="([^"]*)"(?: data-side="([ab])")? data-value="([^"]*)">(.*?)<\/g>/g)].map((m) => {
    const width = /<rect [^>]*width="([\d.]+)"/.exec(m[4]!);
    return { label: m[1]!, ...(m[2] ? { side: m[2] } : {}), value: m[3]!, width: width ? Number(width[1]) : null };
  });
}

describe('charts as SVG', () => {
  it('a bar chart draws one bar per label, its length the value over the axis, none for a missing value', () => {
    const svg = barChart({
      key: 'reward',
      title: 'mean reward per task',
      unit: 'reward',
      bars: [
        { label: 'a <&> b', value: 1 },
        { label: 'half', value: 0.5 },
        { label: 'none', value: null },
      ],
    });
    const [full, half, none] = points(svg);
    expect([full!.label, full!.value, half!.value, none!.value]).toEqual(['a &lt;&amp;&gt; b', '1', '0.5', '']);
    expect(half!.width).toBeCloseTo(full!.width! / 2);
    expect(none!.width).toBeNull();
    expect(svg).toContain('data-chart="reward"');
  });

  it('counts scale to their largest value', () => {
    const [small, large] = points(
      barChart({
        key: 'turns',
        title: 'turns',
        unit: 'count',
        bars: [
          { label: 'x', value: 2 },
          { label: 'y', value: 8 },
        ],
      }),
    );
    expect(small!.width! * 4).toBeCloseTo(large!.width!);
  });

  it('paired bars draw A and B for every label', () => {
    const svg = pairedBarChart({
      key: 'reward',
      title: 'reward per task',
      unit: 'reward',
      names: { a: 'run-a', b: 'run-b' },
      pairs: [
        { label: 't1', a: 1, b: 0.25 },
        { label: 't2', a: 0, b: null },
      ],
    });
    expect(points(svg).map(({ label, side, value }) => [label, side, value])).toEqual([
      ['t1', 'a', '1'],
      ['t1', 'b', '0.25'],
      ['t2', 'a', '0'],
      ['t2', 'b', ''],
    ]);
    expect(svg).toContain('A run-a');
  });
});

describe('a rollout timeline', () => {
  const fixture = harnessCalls('opencode');
  const timeline = rolloutTimeline({ startedAt: fixture.startedAt, createdAt: fixture.startedAt, phases: fixture.phases }, fixture.events, fixture.calls);

  it('lays its phases end to end in run order, the agent phase ending at its event', () => {
    expect(timeline.phases.map((p) => p.name)).toEqual(['image', 'start', 'setup', 'agent', 'verify', 'collect', 'teardown']);
    for (const [before, after] of timeline.phases.slice(1).map((p, i) => [timeline.phases[i]!, p])) expect(after!.start).toBeGreaterThanOrEqual(before!.end);
    const agent = timeline.phases.find((p) => p.name === 'agent')!;
    expect(agent.end).toBe(fixture.events.find((e) => e.kind === 'agent')!.ts - fixture.startedAt);
    expect(agent.end - agent.start).toBe(fixture.phases.agent);
  });

  it('places every model call inside the agent phase and a tool run after each answer with tool calls', () => {
    const agent = timeline.phases.find((p) => p.name === 'agent')!;
    expect(timeline.calls.map((c) => [c.seq, c.label])).toEqual([
      [1, 'helper'],
      [2, 'policy'],
      [3, 'policy'],
      [4, 'policy'],
      [5, 'policy'],
      [6, 'policy'],
    ]);
    for (const c of timeline.calls) {
      expect(c.start).toBeGreaterThanOrEqual(agent.start);
      expect(c.end).toBeLessThanOrEqual(agent.end);
    }
    expect(timeline.toolRuns.map((r) => [r.afterSeq, r.tools])).toEqual([
      [2, ['bash']],
      [3, ['bash']],
      [4, ['bash']],
      [5, ['bash']],
    ]);
    for (const r of timeline.toolRuns) expect(r.end).toBe(timeline.calls.find((c) => c.seq === r.afterSeq + 1)!.start);
  });

  it('draws each phase, call and tool run with its times', () => {
    const svg = timelineChart(timeline);
    const marks = [...svg.matchAll(/<g class="(phase|call|tool-run)" (data-[a-z-]+)="([^"]*)"[^>]* data-start="(\d+)" data-end="(\d+)"/g)].map((m) =>
      m.slice(1, 6),
    );
    expect(marks.filter((m) => m[0] === 'phase').map((m) => m[2])).toEqual(timeline.phases.map((p) => p.name));
    expect(marks.filter((m) => m[0] === 'call')).toHaveLength(6);
    expect(marks.filter((m) => m[0] === 'tool-run')).toHaveLength(4);
    const agent = marks.find((m) => m[2] === 'agent')!;
    expect(Number(agent[4]) - Number(agent[3])).toBe(fixture.phases.agent);
    expect(svg).toContain(`agent ${(fixture.phases.agent! / 1000).toFixed(2)} s`);
  });
});
