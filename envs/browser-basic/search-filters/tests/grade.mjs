// search-filters: the shortlist holds exactly the cheapest in-stock Lenovo with 16 GB (Yoga 7, L04).
import { readState, writeReward } from './grade-kit.mjs';

const { shortlist } = await readState();
writeReward([{ name: 'shortlist is exactly the Lenovo Yoga 7 (L04)', pass: shortlist.length === 1 && shortlist[0] === 'L04', detail: JSON.stringify(shortlist) }]);
