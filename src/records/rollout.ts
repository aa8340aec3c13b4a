/** Where a rollout stands, as the store keeps it. */
export type RolloutStatus = 'pending' | 'running' | 'finished' | 'error';
