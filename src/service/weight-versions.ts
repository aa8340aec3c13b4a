/**
 * The policy weight versions the service's proxies have served, in the order resumes named them: how far
 * the serving weights are past the ones that answered a rollout's first call (its staleness, in updates).
 * Versions are opaque labels: only their order counts. Null is the weights served before any resume named one.
 */
export class WeightVersions {
  private readonly order: (string | null)[];

  /** `named`: the versions resumes named before, in order (a service started again on its store). */
  constructor(named: readonly string[] = []) {
    this.order = [null, ...named];
  }

  get current(): string | null {
    return this.order[this.order.length - 1]!;
  }

  /** The weights now served; naming the current one again is no update (false). */
  name(version: string): boolean {
    if (version === this.current) return false;
    this.order.push(version);
    return true;
  }

  /** Updates since `version` was last named; null for a version this service never served. */
  behind(version: string | null): number | null {
    const at = this.order.lastIndexOf(version);
    return at < 0 ? null : this.order.length - 1 - at;
  }
}
