// Laptop Finder: search with filters (GET form, so the filters are in the URL) and a shortlist.
import { BadRequest, html, page, startSite } from './kit/site.mjs';

const SITE = 'Laptop Finder';
const LAPTOPS = [
  { id: 'L01', name: 'Lenovo ThinkPad E14', brand: 'Lenovo', ram: 16, price: 899, stock: true },
  { id: 'L02', name: 'Lenovo IdeaPad 5', brand: 'Lenovo', ram: 16, price: 749, stock: false },
  { id: 'L03', name: 'Lenovo IdeaPad 3', brand: 'Lenovo', ram: 8, price: 529, stock: true },
  { id: 'L04', name: 'Lenovo Yoga 7', brand: 'Lenovo', ram: 16, price: 819, stock: true },
  { id: 'L05', name: 'Lenovo ThinkPad X1', brand: 'Lenovo', ram: 32, price: 1649, stock: true },
  { id: 'D01', name: 'Dell Inspiron 14', brand: 'Dell', ram: 16, price: 699, stock: true },
  { id: 'D02', name: 'Dell XPS 13', brand: 'Dell', ram: 16, price: 1199, stock: true },
  { id: 'D03', name: 'Dell Latitude 5440', brand: 'Dell', ram: 8, price: 879, stock: false },
  { id: 'H01', name: 'HP Pavilion 15', brand: 'HP', ram: 16, price: 679, stock: true },
  { id: 'H02', name: 'HP EliteBook 840', brand: 'HP', ram: 32, price: 1399, stock: true },
  { id: 'H03', name: 'HP 14s', brand: 'HP', ram: 8, price: 449, stock: true },
  { id: 'A01', name: 'Acer Swift Go 14', brand: 'Acer', ram: 16, price: 729, stock: true },
  { id: 'A02', name: 'Acer Aspire 5', brand: 'Acer', ram: 8, price: 499, stock: false },
  { id: 'S01', name: 'Samsung Galaxy Book3', brand: 'Samsung', ram: 16, price: 949, stock: true },
];
const BRANDS = ['Acer', 'Dell', 'HP', 'Lenovo', 'Samsung'];
const RAMS = [8, 16, 32];
const SORTS = { relevance: 'Relevance', price_asc: 'Price: low to high', price_desc: 'Price: high to low' };

function search(query) {
  const q = (query.get('q') ?? '').trim().toLowerCase();
  const brands = query.getAll('brand');
  const rams = query.getAll('ram').map(Number);
  const stock = query.get('stock') === 'on';
  const sort = SORTS[query.get('sort')] ? query.get('sort') : 'relevance';
  let results = LAPTOPS.filter((l) => (!q || l.name.toLowerCase().includes(q)) && (!brands.length || brands.includes(l.brand)) && (!rams.length || rams.includes(l.ram)) && (!stock || l.stock));
  if (sort === 'price_asc') results = [...results].sort((a, b) => a.price - b.price);
  if (sort === 'price_desc') results = [...results].sort((a, b) => b.price - a.price);
  return { q, brands, rams, stock, sort, results };
}

startSite({
  name: SITE,
  initialState: { shortlist: [] },
  routes: {
    'GET /': ({ state, query }) => {
      const s = search(query);
      const added = LAPTOPS.find((l) => l.id === query.get('added'));
      return page({
        site: SITE,
        title: 'Search',
        nav: [{ href: '/shortlist', label: `Shortlist (${state.shortlist.length})` }],
        style: '.layout{display:flex;gap:24px}.filters{width:280px;height:640px}.results{width:860px}.res{display:flex;align-items:center;height:56px;padding:0 12px;background:#fff;border:1px solid #d0d7de;margin-bottom:-1px}.res .n{width:300px;font-weight:bold}.res .r{width:100px}.res .p{width:110px}.res .s{width:160px}.filters h2{margin-top:8px}',
        body: html`<h1>Find a laptop</h1>
${added ? html`<div class="notice">${added.name} was added to your shortlist.</div>` : ''}
<form method="get" action="/" class="layout">
<div class="card filters">
<input type="search" name="q" value="${s.q}" placeholder="Search by name" aria-label="Search" style="width:236px">
<h2>Brand</h2>${BRANDS.map((b) => html`<label class="check"><input type="checkbox" name="brand" value="${b}" ${s.brands.includes(b) ? 'checked' : ''}>${b}</label>`)}
<h2>Memory</h2>${RAMS.map((r) => html`<label class="check"><input type="checkbox" name="ram" value="${r}" ${s.rams.includes(r) ? 'checked' : ''}>${r} GB</label>`)}
<h2>Availability</h2><label class="check"><input type="checkbox" name="stock" value="on" ${s.stock ? 'checked' : ''}>In stock only</label>
<button class="primary" type="submit" style="margin-top:12px">Apply filters</button>
</div>
<div class="results">
<div class="row" style="height:48px"><label for="sort" style="width:80px"><b>Sort by</b></label><select id="sort" name="sort" onchange="this.form.submit()" style="width:240px">${Object.entries(SORTS).map(([v, l]) => html`<option value="${v}" ${s.sort === v ? 'selected' : ''}>${l}</option>`)}</select><span class="muted">${s.results.length} laptops</span></div>
${s.results.map(
  (l) => html`<div class="res"><span class="n">${l.name}</span><span class="r">${l.ram} GB</span><span class="p">$${l.price}</span><span class="s">${l.stock ? 'In stock' : 'Out of stock'}</span><button class="small" type="submit" formmethod="post" formaction="/shortlist/add?id=${l.id}&${query.toString()}">Shortlist</button></div>`,
)}
</div>
</form>`,
      });
    },
    'POST /shortlist/add': ({ state, query }) => {
      const laptop = LAPTOPS.find((l) => l.id === query.get('id'));
      if (!laptop) throw new BadRequest(`no laptop with id ${query.get('id')}`);
      if (!state.shortlist.includes(laptop.id)) state.shortlist.push(laptop.id);
      const back = new URLSearchParams(query);
      back.delete('id');
      back.set('added', laptop.id);
      return { redirect: `/?${back}` };
    },
    'GET /shortlist': ({ state }) =>
      page({
        site: SITE,
        title: 'Shortlist',
        nav: [{ href: '/', label: 'Search' }],
        body: html`<h1>Your shortlist</h1>${state.shortlist.length ? state.shortlist.map((id) => html`<p>${LAPTOPS.find((l) => l.id === id).name}</p>`) : html`<p>Nothing shortlisted yet.</p>`}`,
      }),
  },
});
