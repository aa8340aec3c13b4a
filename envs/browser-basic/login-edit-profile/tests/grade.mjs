// login-edit-profile: signed in, phone changed to +44 20 7946 0321, name and office untouched.
import { readState, writeReward } from './grade-kit.mjs';

const { logins, profile, saves } = await readState();
const digits = (s) => String(s).replace(/[^\d+]/g, '');
writeReward([
  { name: 'signed in as jordan', pass: logins.ok > 0, detail: JSON.stringify(logins) },
  { name: 'phone is +44 20 7946 0321', pass: saves > 0 && digits(profile.phone) === '+442079460321', detail: profile.phone },
  { name: 'name and office unchanged', pass: profile.full_name === 'Jordan Lee' && profile.office === 'Leeds', detail: `${profile.full_name} / ${profile.office}` },
]);
