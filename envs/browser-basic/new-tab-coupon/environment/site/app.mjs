// Bean There Coffee: a checkout page; this week's coupon is on the promotions page, which opens in a new tab.
import { html, page, startSite } from './kit/site.mjs';

const SITE = 'Bean There Coffee';
const COUPON = 'BREW-2417';
const ITEMS = [
  { name: 'Ethiopia Yirgacheffe, 500 g', price: 18.0 },
  { name: 'Ceramic pour-over dripper', price: 24.0 },
];
const SUBTOTAL = ITEMS.reduce((s, i) => s + i.price, 0);
const money = (n) => `$${n.toFixed(2)}`;
const total = (state) => (state.coupon === COUPON ? SUBTOTAL * 0.8 : SUBTOTAL);

startSite({
  name: SITE,
  initialState: { coupon: null, promotions_viewed: false, paid: null },
  routes: {
    'GET /': () => ({ redirect: '/checkout' }),
    'GET /checkout': ({ state, query }) =>
      page({
        site: SITE,
        title: 'Checkout',
        body: html`<h1>Checkout</h1>
${query.get('error') ? html`<div class="error">${query.get('error')}</div>` : state.coupon ? html`<div class="notice">Coupon ${state.coupon} applied: 20% off.</div>` : ''}
<div class="card" style="width:560px;height:200px">
${ITEMS.map((i) => html`<p>${i.name} — ${money(i.price)}</p>`)}
<p><b>Total: ${money(total(state))}</b></p>
<p><a href="/promotions" target="_blank">See this week's promotions (opens in a new tab)</a></p>
</div>
<form method="post" action="/coupon" class="row" style="height:56px"><input type="text" name="code" aria-label="Coupon code" placeholder="Coupon code" style="width:280px"><button type="submit">Apply coupon</button></form>
<form method="post" action="/pay" style="margin-top:16px"><button class="primary" type="submit">Pay now</button></form>`,
      }),
    'GET /promotions': ({ state }) => {
      state.promotions_viewed = true;
      return page({
        site: SITE,
        title: 'Promotions',
        body: html`<h1>This week's promotions</h1><div class="card" style="width:560px"><p>20% off your whole order with the code</p><p style="font-size:28px;height:40px;line-height:40px"><b>${COUPON}</b></p><p class="muted">Enter it at checkout.</p></div>`,
      });
    },
    'POST /coupon': ({ state, body }) => {
      const code = String(body.code ?? '').trim().toUpperCase();
      if (code !== COUPON) return { redirect: `/checkout?error=${encodeURIComponent(`"${body.code ?? ''}" is not a valid coupon code.`)}` };
      state.coupon = code;
      return { redirect: '/checkout' };
    },
    'POST /pay': ({ state }) => {
      state.paid = { total: Math.round(total(state) * 100) / 100, coupon: state.coupon };
      return { redirect: '/paid' };
    },
    'GET /paid': ({ state }) =>
      page({ site: SITE, title: 'Paid', body: html`<h1>Payment received</h1><div class="notice">We charged ${money(state.paid?.total ?? 0)}. Thank you!</div>` }),
  },
});
