// settings-page: saved with email notifications off, dark theme, Spanish, Europe/Madrid; nothing else changed.
import { readState, writeReward } from './grade-kit.mjs';

const { settings: s, saves } = await readState();
const untouched = s.display_name === 'Sam Ortiz' && s.sms_notifications === false;
writeReward(
  [
    { name: 'email notifications off (others untouched)', pass: saves > 0 && s.email_notifications === false && untouched, detail: JSON.stringify(s) },
    { name: 'theme is Dark', pass: s.theme === 'dark', detail: s.theme },
    { name: 'language is Español', pass: s.language === 'es', detail: s.language },
    { name: 'time zone is Europe/Madrid', pass: s.timezone === 'Europe/Madrid', detail: s.timezone },
  ],
  'partial',
);
