// Smile Dental: book an appointment with a calendar date picker. "Today" is fixed by config (SITE_TODAY),
// never the clock, so the task and its grading are the same on every run.
import { BadRequest, html, page, startSite } from './kit/site.mjs';

const SITE = 'Smile Dental';
const TODAY = process.env.SITE_TODAY ?? '2026-03-11';
const SLOTS = ['09:00', '10:30', '14:00', '16:30'];

const SCRIPT = `
const TODAY = ${JSON.stringify(TODAY)};
const MONTHS = ['January','February','March','April','May','June','July','August','September','October','November','December'];
const input = document.getElementById('date');
const picker = document.getElementById('picker');
let shown = { y: Number(TODAY.slice(0, 4)), m: Number(TODAY.slice(5, 7)) - 1 };
const iso = (y, m, d) => y + '-' + String(m + 1).padStart(2, '0') + '-' + String(d).padStart(2, '0');
function draw() {
  document.getElementById('month').textContent = MONTHS[shown.m] + ' ' + shown.y;
  const grid = document.getElementById('days');
  grid.replaceChildren();
  const first = new Date(Date.UTC(shown.y, shown.m, 1)).getUTCDay(); // 0 = Sunday
  const count = new Date(Date.UTC(shown.y, shown.m + 1, 0)).getUTCDate();
  const lead = (first + 6) % 7; // weeks start on Monday
  for (let i = 0; i < lead; i++) grid.append(document.createElement('span'));
  for (let d = 1; d <= count; d++) {
    const b = document.createElement('button');
    b.type = 'button'; b.textContent = d;
    const day = iso(shown.y, shown.m, d);
    const weekday = new Date(day + 'T00:00:00Z').getUTCDay();
    b.disabled = day < TODAY || weekday === 0 || weekday === 6;
    if (day === TODAY) b.className = 'today';
    if (day === input.value) b.className += ' picked';
    b.setAttribute('aria-label', day);
    b.onclick = () => { input.value = day; picker.hidden = true; };
    grid.append(b);
  }
}
input.onclick = () => { picker.hidden = !picker.hidden; draw(); };
document.getElementById('prev').onclick = () => { shown = shown.m === 0 ? { y: shown.y - 1, m: 11 } : { y: shown.y, m: shown.m - 1 }; draw(); };
document.getElementById('next').onclick = () => { shown = shown.m === 11 ? { y: shown.y + 1, m: 0 } : { y: shown.y, m: shown.m + 1 }; draw(); };
`;

startSite({
  name: SITE,
  initialState: { today: TODAY, bookings: [] },
  routes: {
    'GET /': () => ({ redirect: '/book' }),
    'GET /book': ({ query }) =>
      page({
        site: SITE,
        title: 'Book an appointment',
        style: '.wrap{position:relative;width:480px}#date{cursor:pointer}#picker{position:absolute;left:20px;top:190px;width:320px;height:336px;background:#fff;border:1px solid #8c959f;border-radius:8px;padding:12px;box-shadow:0 6px 20px rgba(0,0,0,.2);z-index:5}#picker[hidden]{display:none}.cal-head{display:flex;align-items:center;height:40px}.cal-head button{width:40px;height:36px;padding:0}.cal-head b{flex:1;text-align:center}.wk,#days{display:grid;grid-template-columns:repeat(7,40px);gap:2px;margin-top:4px}.wk span{height:24px;text-align:center;font-size:13px;color:#57606a}#days button{width:40px;height:36px;padding:0;border:0;background:#f4f6f8;border-radius:4px}#days button:disabled{background:none;color:#b0b7bf}#days button.today{outline:2px solid #0b57d0}#days button.picked{background:#0b57d0;color:#fff}',
        body: html`<h1>Book an appointment</h1>
${query.get('error') ? html`<div class="error">${query.get('error')}</div>` : html`<p class="muted">Today is ${TODAY}. We are open Monday to Friday.</p>`}
<form method="post" action="/book" class="card wrap">
<div class="field"><label for="patient">Patient name</label><input id="patient" type="text" name="patient"></div>
<div class="field"><label for="date">Date</label><input id="date" type="text" name="date" readonly placeholder="Click to pick a date"></div>
<div id="picker" hidden><div class="cal-head"><button type="button" id="prev" aria-label="Previous month">‹</button><b id="month"></b><button type="button" id="next" aria-label="Next month">›</button></div>
<div class="wk">${['Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa', 'Su'].map((d) => html`<span>${d}</span>`)}</div><div id="days"></div></div>
<div class="field" style="height:72px"><label>Time</label><div class="row">${SLOTS.map((s) => html`<label class="check" style="width:96px"><input type="radio" name="time" value="${s}">${s}</label>`)}</div></div>
<button class="primary" type="submit">Book</button>
</form>`,
        script: SCRIPT,
      }),
    'POST /book': ({ state, body }) => {
      const patient = String(body.patient ?? '').trim();
      const date = String(body.date ?? '');
      if (!patient) return { redirect: '/book?error=Please enter the patient name.' };
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || date < TODAY) return { redirect: '/book?error=Please pick a date from the calendar.' };
      if (!SLOTS.includes(body.time)) return { redirect: '/book?error=Please pick a time.' };
      state.bookings.push({ patient, date, time: body.time });
      return { redirect: `/booked?n=${state.bookings.length}` };
    },
    'GET /booked': ({ state, query }) => {
      const b = state.bookings[Number(query.get('n')) - 1];
      if (!b) throw new BadRequest('no such booking');
      return page({ site: SITE, title: 'Booked', body: html`<h1>See you soon</h1><div class="notice">${b.patient}: ${b.date} at ${b.time}.</div>` });
    },
  },
});
