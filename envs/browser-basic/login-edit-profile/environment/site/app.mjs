// Staff Portal: a login form (cookie session) and a profile page. State: login attempts and the profile.
import { html, page, startSite } from './kit/site.mjs';

const SITE = 'Northgate Staff Portal';
const USER = { username: 'jordan', password: 'river-stone-42' };
const SESSION = 'sid=s-jordan-1';

const loggedIn = (cookies) => `sid=${cookies.sid}` === SESSION;

startSite({
  name: SITE,
  initialState: { logins: { ok: 0, failed: 0 }, profile: { full_name: 'Jordan Lee', phone: '+44 20 7946 0000', office: 'Leeds' }, saves: 0 },
  routes: {
    'GET /': ({ cookies }) => ({ redirect: loggedIn(cookies) ? '/profile' : '/login' }),
    'GET /login': ({ query }) =>
      page({
        site: SITE,
        title: 'Sign in',
        body: html`<h1>Sign in</h1>
${query.get('failed') ? html`<div class="error">Wrong username or password. Try again.</div>` : ''}
<form method="post" action="/login" class="card" style="width:420px">
<div class="field"><label for="username">Username</label><input id="username" type="text" name="username" autocomplete="off"></div>
<div class="field"><label for="password">Password</label><input id="password" type="password" name="password"></div>
<button class="primary" type="submit">Sign in</button>
</form>`,
      }),
    'POST /login': ({ state, body }) => {
      if (body.username === USER.username && body.password === USER.password) {
        state.logins.ok += 1;
        return { redirect: '/profile', setCookie: `${SESSION}; Path=/; HttpOnly` };
      }
      state.logins.failed += 1;
      return { redirect: '/login?failed=1' };
    },
    'GET /profile': ({ state, cookies, query }) => {
      if (!loggedIn(cookies)) return { redirect: '/login' };
      const p = state.profile;
      return page({
        site: SITE,
        title: 'My profile',
        nav: [{ href: '/logout', label: 'Sign out' }],
        body: html`<h1>My profile</h1>
${query.get('saved') ? html`<div class="notice">Profile saved.</div>` : ''}
<form method="post" action="/profile" class="card" style="width:420px">
<div class="field"><label for="full_name">Full name</label><input id="full_name" type="text" name="full_name" value="${p.full_name}"></div>
<div class="field"><label for="phone">Phone number</label><input id="phone" type="text" name="phone" value="${p.phone}"></div>
<div class="field"><label for="office">Office</label><input id="office" type="text" name="office" value="${p.office}"></div>
<button class="primary" type="submit">Save profile</button>
</form>`,
      });
    },
    'POST /profile': ({ state, cookies, body }) => {
      if (!loggedIn(cookies)) return { redirect: '/login' };
      for (const key of ['full_name', 'phone', 'office']) if (typeof body[key] === 'string') state.profile[key] = body[key].trim();
      state.saves += 1;
      return { redirect: '/profile?saved=1' };
    },
    'GET /logout': () => ({ redirect: '/login', setCookie: 'sid=; Path=/; Max-Age=0' }),
  },
});
