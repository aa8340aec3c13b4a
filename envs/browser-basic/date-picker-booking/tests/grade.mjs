// date-picker-booking: one booking for Alex Kim on the first Friday of next month (today 2026-03-11 → 2026-04-03) at 16:30.
import { readState, sameText, writeReward } from './grade-kit.mjs';

const { bookings } = await readState();
const b = bookings.length === 1 ? bookings[0] : undefined;
writeReward(
  [
    { name: 'one booking for Alex Kim', pass: !!b && sameText(b.patient, 'Alex Kim'), detail: JSON.stringify(bookings) },
    { name: 'date is 2026-04-03 (first Friday of April)', pass: b?.date === '2026-04-03', detail: b?.date },
    { name: 'time is 16:30', pass: b?.time === '16:30', detail: b?.time },
  ],
  'partial',
);
