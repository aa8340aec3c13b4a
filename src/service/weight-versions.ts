/**
 * The policy weight versions the service's proxies have served, in the order resumes named them: how far
 * the serving weights are past the ones that answered a rollout's first call (its staleness, in updates).
 * Versions are opaque labels: only their order counts. Null is the weights served before any resume named one.
 */
export class WeightVersions {
  private readonly order: (string | null)[] = [null];

  get current(): string | null {
    return this.order[this.order.length - 1]!;
  }

  /** The weights now served; naming the current one again is no update. */
  name(version: string): void {
    if (version !== this.current) this.order.push(version);
  }

  /** Updates since `version` was last named; null for a version this service never served. */
  behind(version: string | null): number | null {
    const at = this.order.lastIndexOf(version);
    return at < 0 ? null : this.order.length - 1 - at;
  }
}
