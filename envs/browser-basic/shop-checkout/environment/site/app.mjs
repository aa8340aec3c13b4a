// Corner Shop: a product grid, a cart and a checkout form. State: the cart and the placed orders.
import { BadRequest, html, page, startSite } from './kit/site.mjs';

const SITE = 'Corner Shop';
const PRODUCTS = [
  { sku: 'mug-blue', name: 'Blue Ceramic Mug', price: 12.5 },
  { sku: 'mug-white', name: 'White Ceramic Mug', price: 11.0 },
  { sku: 'towel-linen', name: 'Linen Tea Towel', price: 9.0 },
  { sku: 'towel-cotton', name: 'Cotton Tea Towel', price: 6.5 },
  { sku: 'teapot', name: 'Cast Iron Teapot', price: 48.0 },
  { sku: 'coaster-cork', name: 'Cork Coasters (4)', price: 7.25 },
  { sku: 'tray-oak', name: 'Oak Serving Tray', price: 34.0 },
  { sku: 'jar-honey', name: 'Glass Honey Jar', price: 8.75 },
];
const SHIPPING = { standard: { label: 'Standard (3-5 days)', price: 4.0 }, express: { label: 'Express (next day)', price: 12.0 } };
const NAV = [{ href: '/', label: 'Products' }, { href: '/cart', label: 'Cart' }];

const money = (n) => `$${n.toFixed(2)}`;
const product = (sku) => {
  const p = PRODUCTS.find((x) => x.sku === sku);
  if (!p) throw new BadRequest(`unknown product "${sku}"`);
  return p;
};
const cartCount = (state) => state.cart.reduce((n, l) => n + l.qty, 0);
const nav = (state) => NAV.map((n) => (n.href === '/cart' ? { ...n, label: `Cart (${cartCount(state)})` } : n));

startSite({
  name: SITE,
  initialState: { cart: [], orders: [] },
  routes: {
    'GET /': ({ state, query }) => {
      const added = query.get('added');
      return page({
        site: SITE,
        title: 'Products',
        nav: nav(state),
        body: html`<h1>Products</h1>
${added ? html`<div class="notice">Added ${product(added).name} to your cart.</div>` : ''}
<div class="grid">
${PRODUCTS.map(
  (p) => html`<div class="card product"><div class="pname">${p.name}</div><div class="price">${money(p.price)}</div>
<form method="post" action="/cart/add"><input type="hidden" name="sku" value="${p.sku}"><button class="primary" type="submit">Add to cart</button></form></div>`,
)}
</div>`,
        style: '.grid{display:grid;grid-template-columns:repeat(4,280px);gap:16px}.product{height:170px;margin:0}.pname{height:32px;font-size:18px;font-weight:bold;white-space:nowrap;overflow:hidden}.price{height:40px;color:#57606a}',
      });
    },
    'POST /cart/add': ({ state, body }) => {
      const p = product(body.sku);
      const line = state.cart.find((l) => l.sku === p.sku);
      if (line) line.qty += 1;
      else state.cart.push({ sku: p.sku, qty: 1 });
      return { redirect: `/?added=${p.sku}` };
    },
    'POST /cart/update': ({ state, body }) => {
      const p = product(body.sku);
      const qty = Number(body.qty);
      if (!Number.isInteger(qty) || qty < 0 || qty > 99) throw new BadRequest('quantity must be a whole number from 0 to 99');
      state.cart = state.cart.map((l) => (l.sku === p.sku ? { ...l, qty } : l)).filter((l) => l.qty > 0);
      return { redirect: '/cart' };
    },
    'GET /cart': ({ state }) => {
      const lines = state.cart.map((l) => ({ ...l, p: product(l.sku) }));
      const subtotal = lines.reduce((s, l) => s + l.qty * l.p.price, 0);
      return page({
        site: SITE,
        title: 'Cart',
        nav: nav(state),
        body: html`<h1>Your cart</h1>
${lines.length === 0
  ? html`<p>Your cart is empty.</p>`
  : html`<table><colgroup><col style="width:320px"><col style="width:120px"><col style="width:260px"><col style="width:140px"></colgroup>
<tr><th>Product</th><th>Price</th><th>Quantity</th><th>Total</th></tr>
${lines.map(
  (l) => html`<tr><td>${l.p.name}</td><td>${money(l.p.price)}</td><td><form method="post" action="/cart/update" class="row"><input type="hidden" name="sku" value="${l.sku}"><input type="number" name="qty" value="${l.qty}" min="0" max="99" style="width:80px;height:32px"><button class="small" type="submit">Update</button></form></td><td>${money(l.qty * l.p.price)}</td></tr>`,
)}
<tr><td colspan="3"><b>Subtotal</b></td><td><b>${money(subtotal)}</b></td></tr></table>
<p></p><a class="btn primary" href="/checkout">Checkout</a>`}`,
      });
    },
    'GET /checkout': ({ state, query }) =>
      page({
        site: SITE,
        title: 'Checkout',
        nav: nav(state),
        body: html`<h1>Checkout</h1>
${query.get('error') ? html`<div class="error">${query.get('error')}</div>` : ''}
<form method="post" action="/checkout" class="card" style="width:480px">
<div class="field"><label for="name">Full name</label><input id="name" type="text" name="name"></div>
<div class="field"><label for="address">Street address</label><input id="address" type="text" name="address"></div>
<div class="field"><label for="city">City</label><input id="city" type="text" name="city"></div>
<div class="field" style="height:112px"><label>Shipping</label>
${Object.entries(SHIPPING).map(([id, s], i) => html`<label class="check"><input type="radio" name="shipping" value="${id}" ${i === 0 ? 'checked' : ''}>${s.label} — ${money(s.price)}</label>`)}
</div>
<button class="primary" type="submit">Place order</button>
</form>`,
      }),
    'POST /checkout': ({ state, body }) => {
      if (state.cart.length === 0) return { redirect: '/checkout?error=Your cart is empty.' };
      for (const f of ['name', 'address', 'city']) {
        if (!String(body[f] ?? '').trim()) return { redirect: `/checkout?error=Please fill in the ${f === 'name' ? 'full name' : f}.` };
      }
      const shipping = SHIPPING[body.shipping] ? body.shipping : 'standard';
      const items = state.cart.map((l) => ({ ...l }));
      const total = items.reduce((s, l) => s + l.qty * product(l.sku).price, 0) + SHIPPING[shipping].price;
      const order = { id: 1001 + state.orders.length, items, name: body.name, address: body.address, city: body.city, shipping, total };
      state.orders.push(order);
      state.cart = [];
      return { redirect: `/order?id=${order.id}` };
    },
    'GET /order': ({ state, query }) => {
      const order = state.orders.find((o) => String(o.id) === query.get('id'));
      if (!order) throw new BadRequest(`no order ${query.get('id')}`);
      return page({
        site: SITE,
        title: 'Order placed',
        nav: nav(state),
        body: html`<h1>Thank you, your order is placed</h1><div class="card"><p>Order number ${order.id}</p><p>Total charged: ${money(order.total)}</p></div>`,
      });
    },
  },
});
