// scroll-long-page: registered for the closing concert (event 35) and nothing else.
import { readState, writeReward } from './grade-kit.mjs';

const { registrations } = await readState();
writeReward([{ name: 'registered for the closing concert only', pass: registrations.length === 1 && registrations[0] === 35, detail: JSON.stringify(registrations) }]);
