/** How the simulated model labels itself and the headers it reads; one place so every module agrees. */
export const SIM_FINGERPRINT = 'openforge-sim';
export const SIM_OWNER = 'openforge-sim';
/** Response header carrying the policy name, e.g. `x-openforge-sim: oracle`. */
export const SIM_HEADER = 'x-openforge-sim';
