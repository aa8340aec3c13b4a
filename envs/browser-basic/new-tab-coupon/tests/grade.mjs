// new-tab-coupon: coupon BREW-2417 applied and the order paid with it (42.00 * 0.8 = 33.60).
import { readState, writeReward } from './grade-kit.mjs';

const state = await readState();
writeReward(
  [
    { name: 'coupon BREW-2417 applied', pass: state.coupon === 'BREW-2417', detail: String(state.coupon) },
    { name: 'paid 33.60 with the coupon', pass: state.paid?.coupon === 'BREW-2417' && state.paid?.total === 33.6, detail: JSON.stringify(state.paid) },
  ],
  'partial',
);
