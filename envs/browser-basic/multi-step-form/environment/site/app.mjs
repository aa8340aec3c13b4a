// Harbour Insurance: a three-step application wizard. State: the draft being filled in and the submitted applications.
import { html, page, startSite } from './kit/site.mjs';

const SITE = 'Harbour Travel Insurance';
const PLANS = { basic: 'Basic — $19 / trip', plus: 'Plus — $34 / trip', premium: 'Premium — $59 / trip' };
const COUNTRIES = ['Australia', 'Brazil', 'Canada', 'Chile', 'Denmark', 'France', 'Germany', 'India', 'Ireland', 'Japan', 'Kenya', 'Mexico', 'New Zealand', 'Spain', 'United Kingdom', 'United States'];
const EMPTY = { name: '', email: '', plan: '', country: '', terms: false };

const stepper = (n) =>
  html`<div class="steps">${['1. Your details', '2. Cover', '3. Review'].map((s, i) => html`<span class="${i + 1 === n ? 'on' : ''}">${s}</span>`)}</div>`;
const STYLE = '.steps{display:flex;gap:8px;height:40px;margin-bottom:16px}.steps span{width:200px;height:40px;line-height:40px;text-align:center;background:#eaeef2;border-radius:6px}.steps span.on{background:#1f3a5f;color:#fff;font-weight:bold}.actions{display:flex;gap:16px;height:48px;align-items:center}';
const error = (query) => (query.get('error') ? html`<div class="error">${query.get('error')}</div>` : '');

startSite({
  name: SITE,
  initialState: { draft: { ...EMPTY }, applications: [] },
  routes: {
    'GET /': () => ({ redirect: '/apply/1' }),
    'GET /apply/1': ({ state, query }) =>
      page({
        site: SITE,
        title: 'Apply',
        style: STYLE,
        body: html`<h1>Apply for travel insurance</h1>${stepper(1)}${error(query)}
<form method="post" action="/apply/1" class="card" style="width:480px">
<div class="field"><label for="name">Full name</label><input id="name" type="text" name="name" value="${state.draft.name}"></div>
<div class="field"><label for="email">Email</label><input id="email" type="text" name="email" value="${state.draft.email}"></div>
<div class="actions"><button class="primary" type="submit">Next</button></div>
</form>`,
      }),
    'POST /apply/1': ({ state, body }) => {
      const name = String(body.name ?? '').trim();
      const email = String(body.email ?? '').trim();
      if (!name) return { redirect: '/apply/1?error=Please enter your full name.' };
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) return { redirect: '/apply/1?error=Please enter a valid email address.' };
      Object.assign(state.draft, { name, email });
      return { redirect: '/apply/2' };
    },
    'GET /apply/2': ({ state, query }) =>
      page({
        site: SITE,
        title: 'Cover',
        style: STYLE,
        body: html`<h1>Apply for travel insurance</h1>${stepper(2)}${error(query)}
<form method="post" action="/apply/2" class="card" style="width:480px">
<div class="field" style="height:128px"><label>Plan</label>
${Object.entries(PLANS).map(([id, label]) => html`<label class="check"><input type="radio" name="plan" value="${id}" ${state.draft.plan === id ? 'checked' : ''}>${label}</label>`)}
</div>
<div class="field"><label for="country">Country of residence</label><select id="country" name="country"><option value="">Choose a country…</option>
${COUNTRIES.map((c) => html`<option ${state.draft.country === c ? 'selected' : ''}>${c}</option>`)}</select></div>
<div class="field" style="height:48px"><label class="check"><input type="checkbox" name="terms" value="yes" ${state.draft.terms ? 'checked' : ''}>I agree to the policy terms</label></div>
<div class="actions"><a class="btn" href="/apply/1">Back</a><button class="primary" type="submit">Next</button></div>
</form>`,
      }),
    'POST /apply/2': ({ state, body }) => {
      if (!PLANS[body.plan]) return { redirect: '/apply/2?error=Please choose a plan.' };
      if (!COUNTRIES.includes(body.country)) return { redirect: '/apply/2?error=Please choose your country of residence.' };
      if (body.terms !== 'yes') return { redirect: '/apply/2?error=Please agree to the policy terms.' };
      Object.assign(state.draft, { plan: body.plan, country: body.country, terms: true });
      return { redirect: '/apply/3' };
    },
    'GET /apply/3': ({ state }) => {
      const d = state.draft;
      if (!d.name || !d.plan) return { redirect: d.name ? '/apply/2' : '/apply/1' };
      return page({
        site: SITE,
        title: 'Review',
        style: STYLE,
        body: html`<h1>Apply for travel insurance</h1>${stepper(3)}
<form method="post" action="/apply/3" class="card" style="width:480px">
<p>Name: <b>${d.name}</b></p><p>Email: <b>${d.email}</b></p><p>Plan: <b>${PLANS[d.plan]}</b></p><p>Country: <b>${d.country}</b></p>
<div class="actions"><a class="btn" href="/apply/2">Back</a><button class="primary" type="submit">Submit</button></div>
</form>`,
      });
    },
    'POST /apply/3': ({ state }) => {
      const d = state.draft;
      if (!d.name || !d.plan || !d.terms) return { redirect: '/apply/1?error=Please complete every step first.' };
      state.applications.push({ reference: `HTI-${2041 + state.applications.length}`, ...d });
      state.draft = { ...EMPTY };
      return { redirect: '/apply/done' };
    },
    'GET /apply/done': ({ state }) => {
      const last = state.applications.at(-1);
      return page({
        site: SITE,
        title: 'Submitted',
        body: html`<h1>Application submitted</h1><div class="notice">Your reference is ${last?.reference ?? '—'}.</div>`,
      });
    },
  },
});
