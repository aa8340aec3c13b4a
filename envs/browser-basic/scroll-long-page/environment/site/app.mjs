// Riverside Community Centre: a long list of season events, each with a Register button.
import { BadRequest, html, page, startSite } from './kit/site.mjs';

const SITE = 'Riverside Community Centre';
const KINDS = ['Pottery for beginners', 'Chess club night', 'Toddler music hour', 'Yoga in the hall', 'Local history talk', 'Repair café', 'Board game evening', 'Watercolour workshop', 'Choir rehearsal', 'Coding club for teens'];
const MONTHS = ['Sep', 'Oct', 'Nov', 'Dec', 'Jan', 'Feb', 'Mar', 'Apr', 'May'];
// 35 events: a fixed list (no dates computed from a clock); the last one is the season's closing concert.
const EVENTS = Array.from({ length: 34 }, (_, i) => ({ id: i + 1, title: KINDS[i % KINDS.length], when: `${MONTHS[Math.floor(i / 4)]} ${3 + (i % 4) * 7}` }));
EVENTS.push({ id: 35, title: 'Closing concert: Riverside Brass Band', when: 'Jun 20' });

startSite({
  name: SITE,
  initialState: { registrations: [] },
  routes: {
    'GET /': ({ state, query }) => {
      const done = EVENTS.find((e) => String(e.id) === query.get('registered'));
      return page({
        site: SITE,
        title: 'Events',
        style: '.ev{display:flex;align-items:center;height:64px;width:880px;padding:0 16px;background:#fff;border:1px solid #d0d7de;margin-bottom:-1px}.ev .when{width:110px;font-weight:bold}.ev .title{flex:1;white-space:nowrap;overflow:hidden}.ev .state{width:140px;color:#1e8e3e}',
        body: html`<h1>Events this season</h1>
${done ? html`<div class="notice">You are registered for ${done.title} (${done.when}).</div>` : html`<p class="muted">Scroll down to see the whole season.</p>`}
${EVENTS.map(
  (e) => html`<div class="ev"><span class="when">${e.when}</span><span class="title">${e.title}</span><span class="state">${state.registrations.includes(e.id) ? 'Registered' : ''}</span>
<form method="post" action="/register"><input type="hidden" name="id" value="${e.id}"><button class="small" type="submit">Register</button></form></div>`,
)}
<p class="muted" style="margin-top:16px">That is all for this season.</p>`,
      });
    },
    'POST /register': ({ state, body }) => {
      const event = EVENTS.find((e) => String(e.id) === String(body.id));
      if (!event) throw new BadRequest(`no event with id ${body.id}`);
      if (!state.registrations.includes(event.id)) state.registrations.push(event.id);
      return { redirect: `/?registered=${event.id}` };
    },
  },
});
