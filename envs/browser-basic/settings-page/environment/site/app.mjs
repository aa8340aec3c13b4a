// Account settings of "Pinecone Mail": one form; the saved settings are the state.
import { html, page, startSite } from './kit/site.mjs';

const SITE = 'Pinecone Mail';
const LANGUAGES = { en: 'English', de: 'Deutsch', es: 'Español', fr: 'Français', it: 'Italiano', pt: 'Português' };
const TIMEZONES = ['UTC', 'America/New_York', 'America/Los_Angeles', 'Asia/Tokyo', 'Europe/Berlin', 'Europe/London', 'Europe/Madrid', 'Europe/Paris'];
const THEMES = { light: 'Light', dark: 'Dark', system: 'Same as my device' };

startSite({
  name: SITE,
  initialState: { settings: { display_name: 'Sam Ortiz', email_notifications: true, sms_notifications: false, language: 'en', timezone: 'UTC', theme: 'light' }, saves: 0 },
  routes: {
    'GET /': () => ({ redirect: '/settings' }),
    'GET /settings': ({ state, query }) => {
      const s = state.settings;
      return page({
        site: SITE,
        title: 'Settings',
        nav: [{ href: '/settings', label: 'Settings' }],
        style: '.cols{display:flex;gap:24px}.cols .card{width:440px;height:430px}',
        body: html`<h1>Account settings</h1>
${query.get('saved') ? html`<div class="notice">Your settings were saved.</div>` : ''}
<form method="post" action="/settings">
<div class="cols">
<div class="card">
<h2>Profile</h2>
<div class="field"><label for="display_name">Display name</label><input id="display_name" type="text" name="display_name" value="${s.display_name}"></div>
<div class="field"><label for="language">Language</label><select id="language" name="language">${Object.entries(LANGUAGES).map(([v, l]) => html`<option value="${v}" ${s.language === v ? 'selected' : ''}>${l}</option>`)}</select></div>
<div class="field"><label for="timezone">Time zone</label><select id="timezone" name="timezone">${TIMEZONES.map((z) => html`<option ${s.timezone === z ? 'selected' : ''}>${z}</option>`)}</select></div>
</div>
<div class="card">
<h2>Notifications</h2>
<label class="check"><input type="checkbox" name="email_notifications" value="on" ${s.email_notifications ? 'checked' : ''}>Email me about new messages</label>
<label class="check"><input type="checkbox" name="sms_notifications" value="on" ${s.sms_notifications ? 'checked' : ''}>Text me about new messages</label>
<h2 style="margin-top:24px">Theme</h2>
${Object.entries(THEMES).map(([v, l]) => html`<label class="check"><input type="radio" name="theme" value="${v}" ${s.theme === v ? 'checked' : ''}>${l}</label>`)}
</div>
</div>
<button class="primary" type="submit">Save changes</button>
</form>`,
      });
    },
    'POST /settings': ({ state, body }) => {
      state.settings = {
        display_name: String(body.display_name ?? '').trim() || state.settings.display_name,
        email_notifications: body.email_notifications === 'on',
        sms_notifications: body.sms_notifications === 'on',
        language: LANGUAGES[body.language] ? body.language : state.settings.language,
        timezone: TIMEZONES.includes(body.timezone) ? body.timezone : state.settings.timezone,
        theme: THEMES[body.theme] ? body.theme : state.settings.theme,
      };
      state.saves += 1;
      return { redirect: '/settings?saved=1' };
    },
  },
});
